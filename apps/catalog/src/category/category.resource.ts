import {
  IN_CHILDREN_FILTER,
  categoryListDecl,
  categorySchemas,
  type CategoryInput,
  type CategoryView,
} from '@pim/resources';
import type { RecordResource } from '@pim/records';
import { taxonomyColumns, taxonomyView } from '../taxonomy/taxonomy.fields';
import { CategoryEntity } from './category.entity';
import { refuseDeleteLinkedCategory } from '../attribute/attribute.rules';
import { lockCategoryWrite, moveSubtree, placeCategory, refuseDeleteWithChildren } from './category.tree';
import { refuseDeleteNamedByProducts } from '../product/product.usage';
import { refuseDeleteNamedByRelations } from '../relation/relation.usage';

/**
 * Categories: nodes of a tree. `categories_in_children=<id>` is a filter on the stored path
 * (`path @> {id}`: the category and every descendant, one GIN lookup). A category with live
 * children, or that live attributes, attribute groups, products or product relations point at,
 * cannot be deleted.
 */
export const categoryResource: RecordResource<CategoryEntity, CategoryView, CategoryInput> = {
  collection: 'categories',
  entity: CategoryEntity,
  schemas: categorySchemas,
  listDecl: categoryListDecl,
  listColumns: { [IN_CHILDREN_FILTER]: 'path' },
  handle: 'code',
  columns: (input, prev) => ({
    ...taxonomyColumns(input),
    category_tree_id: input.category_tree_id,
    parent_id: input.parent_id ?? null,
    // placeCategory recomputes it when the category is (re)placed.
    path: prev?.path ?? [],
  }),
  view: (c) => ({
    ...taxonomyView(c),
    category_tree_id: c.category_tree_id,
    ...(c.parent_id !== null ? { parent_id: c.parent_id } : {}),
  }),
  hooks: {
    lock: lockCategoryWrite,
    beforeWrite: placeCategory,
    afterWrite: moveSubtree,
    async beforeDelete(m, category) {
      await refuseDeleteWithChildren(m, category);
      await refuseDeleteLinkedCategory(m, category);
      await refuseDeleteNamedByProducts('category', 'categories')(m, category);
      await refuseDeleteNamedByRelations('category')(m, category);
    },
  },
};
