import type { EntityManager } from 'typeorm';
import { ConflictError, withLinks } from '@pim/errors';
import { CategoryTree } from '@pim/resources';
import { declaredRecord } from '@pim/records';
import { categoriesInTree } from '../repositories/categories.repository';
import { refuseDeleteNamedByProducts } from '../product/product.usage';
import { CategoryTreeEntity } from '../entities/category-tree.entity';

/**
 * A tree with live categories cannot be deleted (409 with their count). The tree's row lock,
 * held by the delete, is the lock every category create in the tree takes first (FOR SHARE), so
 * no category can appear in it between the count and the commit.
 */
async function refuseDeleteWithCategories(m: EntityManager, tree: CategoryTreeEntity): Promise<void> {
  const n = await categoriesInTree(m, tree._id);
  if (n > 0) {
    throw new ConflictError(`Category tree '${tree.code}' still has ${n} live ${n === 1 ? 'category' : 'categories'}`, {
      title: 'Category tree in use',
      ...withLinks(
        (link) =>
          `Delete its categories or move them to another tree first (${link({ collection: 'categories', query: { category_tree_id: tree._id } })})`,
      ),
      details: [{ field: '_id', message: `${n} live ${n === 1 ? 'category' : 'categories'} in this tree` }],
    });
  }
}

/** Category trees: the common taxonomy fields; deleting one needs it to be empty. */
export const categoryTreeResource = declaredRecord(CategoryTree, {
  entity: CategoryTreeEntity,
  handle: 'code',
  hooks: {
    async beforeDelete(m, tree) {
      await refuseDeleteWithCategories(m, tree);
      await refuseDeleteNamedByProducts('category tree', 'category_trees')(m, tree);
    },
  },
});
