import type { EntityManager } from 'typeorm';
import { Category, IN_CHILDREN_FILTER } from '@pim/resources';
import { declaredRecord, refuseInUse } from '@pim/records';
import { CategoryEntity } from '../entities/category.entity';
import { attributesInCategory } from '../repositories/attributes.repository';
import { groupsInCategory } from '../repositories/attribute-groups.repository';
import { lockCategoryWrite, moveSubtree, placeCategory, refuseDeleteWithChildren } from './category.tree';
import { refuseDeleteNamedByProducts } from '../product/product.usage';
import { refuseDeleteNamedByRelations } from '../relation/relation.usage';

/**
 * A category that live attributes or attribute groups point at cannot be deleted (409 with how
 * many). Their writes hold a share lock on it, so none can point at it between the count and the commit.
 */
async function refuseDeleteLinkedCategory(m: EntityManager, category: CategoryEntity): Promise<void> {
  const attributes = await attributesInCategory(m, category._id);
  const groups = await groupsInCategory(m, category._id);
  refuseInUse('category', category.code, [
    { count: attributes, collection: 'attributes', query: { category_ids: category._id } },
    { count: groups, collection: 'attribute_groups', query: { category_id: category._id } },
  ]);
}

/**
 * Categories: nodes of a tree. `categories_in_children=<id>` is a filter on the stored path
 * (`path @> {id}`: the category and every descendant, one GIN lookup). A category with live
 * children, or that live attributes, attribute groups, products or product relations point at,
 * cannot be deleted.
 */
export const categoryResource = declaredRecord(Category, {
  entity: CategoryEntity,
  listColumns: { [IN_CHILDREN_FILTER]: 'path' },
  handle: 'code',
  // placeCategory recomputes the path when the category is (re)placed.
  derived: (_input, prev) => ({ path: prev?.path ?? [] }),
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
});
