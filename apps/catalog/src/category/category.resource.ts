import { Category, IN_CHILDREN_FILTER } from '@pim/resources';
import { declaredRecord } from '@pim/records';
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
