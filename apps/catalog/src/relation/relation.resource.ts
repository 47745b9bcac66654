import type { EntityManager } from 'typeorm';
import { ConflictError, ValidationError, type ErrorDetail, withLinks } from '@pim/errors';
import {
  PRODUCT_ITEM_TYPES,
  ProductRelation,
  type ProductRelationItem,
  type ProductRelationType,
} from '@pim/resources';
import { declaredRecord, requireLive } from '@pim/records';
import { ProductRelationEntity } from '../entities/relation.entity';
import { liveCategoryTrees } from '../repositories/categories.repository';
import { otherRelationWithKey } from '../repositories/product-relations.repository';
import { liveProductTypes } from '../repositories/products.repository';
import {
  refuseRelationOutOfSight,
  relationAudience,
  relationItemsInSight,
  type ItemsSight,
} from '../access/product-sight';

/** The handle of a relation: one live relation per product and type. */
export const relationKey = (productId: string, type: string): string => `${productId}:${type}`;

const PRODUCTS = { table: 'products', collection: 'products' };

/**
 * What each item must be, by type: a product that is (or is not) a service, or a category (in its
 * tree). Items in `kept` (held already, out of the caller's sight) are not checked again.
 */
function problemsOf(
  type: ProductRelationType,
  items: ProductRelationItem[],
  products: Map<string, string>,
  categories: Map<string, string>,
  kept: Set<string>,
): ErrorDetail[] {
  return items.flatMap((item, i): ErrorDetail[] => {
    const field = `${type}.${i}.id`;
    if (PRODUCT_ITEM_TYPES.includes(type)) {
      if (kept.has(item.id)) return [];
      const productType = products.get(item.id);
      if (productType === undefined) return [{ field, message: `no live product has _id '${item.id}'` }];
      if (type === 'kit_products' && productType === 'service')
        return [
          {
            field,
            message: `product '${item.id}' is a service; kit_products holds products that are not services (kit_services holds services)`,
          },
        ];
      if (type === 'kit_services' && productType !== 'service')
        return [{ field, message: `product '${item.id}' is not a service (its type is ${productType})` }];
      return [];
    }
    const tree = categories.get(item.id);
    if (tree === undefined) return [{ field, message: `no live category has _id '${item.id}'` }];
    if (item.category_tree_id !== undefined && tree !== item.category_tree_id) {
      return [
        {
          field: `${type}.${i}.category_tree_id`,
          message: `category '${item.id}' is in category tree '${tree}', not '${item.category_tree_id}'`,
        },
      ];
    }
    return [];
  });
}

/**
 * Checks that the relation's product is live and that every item names a live record that fits the
 * type; a product out of the caller's sight is no live product (`sight.unseen`), one the relation
 * held already is not checked again (`sight.kept`).
 */
async function checkReferences(m: EntityManager, next: ProductRelationEntity, sight: ItemsSight): Promise<void> {
  await requireLive(m, PRODUCTS, [{ field: 'product_id', id: next.product_id }]);
  const ids = next.items.map((i) => i.id);
  const namesProducts = PRODUCT_ITEM_TYPES.includes(next.type);
  const products: Map<string, string> = namesProducts
    ? await liveProductTypes(
        m,
        ids.filter((id) => !sight.unseen.has(id) && !sight.kept.has(id)),
      )
    : new Map();
  const categories = namesProducts ? new Map<string, string>() : await liveCategoryTrees(m, ids);
  const details = problemsOf(next.type, next.items, products, categories, sight.kept);
  if (details.length === 0) return;
  throw new ValidationError(
    details.length === 1
      ? `Product relation: ${details[0].field} ${details[0].message}`
      : `Product relation has ${details.length} problems`,
    {
      title: 'Invalid product relation',
      solution:
        'Name live records that fit the type: products (services for kit_services, non-services for kit_products) or categories with their tree',
      details,
    },
  );
}

/** A clear 409 for a second relation of one product and type (the unique index still decides races). */
async function refuseSecond(m: EntityManager, next: ProductRelationEntity): Promise<void> {
  const other = await otherRelationWithKey(m, next.key, next._id);
  if (other === undefined) return;
  throw new ConflictError(`Product '${next.product_id}' already has a live ${next.type} relation (${other})`, {
    title: 'Relation exists',
    ...withLinks(
      (link) =>
        `Change that relation (${link({ method: 'PATCH', collection: 'product_relations', id: other })}) instead of creating another`,
    ),
    details: [{ field: 'type', message: `one live relation per product and type; key '${next.key}' is taken` }],
  });
}

/**
 * Product relations: one list per relation, the one its type names; `key`
 * (`<product_id>:<type>`) is unique among live relations. Every write checks that the product is
 * live and each item names a live record fitting the type. A restricted caller names only products
 * they see; items they cannot see that the relation holds are kept (`relationItemsInSight`).
 */
export const productRelationResource = declaredRecord(ProductRelation, {
  entity: ProductRelationEntity,
  handle: 'key',
  derived: (input) => ({
    key: relationKey(input.product_id, input.type),
    items: (input[input.type] ?? []) as ProductRelationItem[],
  }),
  derivedView: (r) => ({ [r.type]: r.items }),
  audience: relationAudience,
  hooks: {
    async beforeWrite(m, next, prev) {
      await refuseRelationOutOfSight(m, next.product_id);
      const sight = PRODUCT_ITEM_TYPES.includes(next.type)
        ? await relationItemsInSight(m, next, prev)
        : { kept: new Set<string>(), unseen: new Set<string>() };
      await checkReferences(m, next, sight);
      await refuseSecond(m, next);
    },
  },
});
