import type { EntityManager } from 'typeorm';
import type { RequirementWorld } from '../product/product.completeness';
import type { AttributeDef, FamilyDef } from '../product/product.world';

const uniq = (ids: Iterable<string | null>) => [...new Set([...ids].filter((x): x is string => x !== null))].sort();

/** What the requirement world of a batch is read from: each product's family, groups and categories. */
export interface RequirementSubject {
  family_id: string | null;
  attribute_groups: string[];
  categories: string[];
}

/**
 * The families and the attributes that may apply to a batch of stored products, read in two
 * queries and without locks: unlike a product write, a recompute checks nothing, and a change
 * committed after this read records its own recompute.
 */
export async function loadRequirementWorld(
  m: EntityManager,
  products: RequirementSubject[],
): Promise<RequirementWorld> {
  const familyIds = uniq(products.map((p) => p.family_id));
  const familyRows: ({ _id: string } & FamilyDef)[] =
    familyIds.length === 0
      ? []
      : await m.query(
          `SELECT "_id", "attribute_groups", "attributes" FROM "families" WHERE "_id" = ANY($1) AND "deleted" = false`,
          [familyIds],
        );
  const groups = uniq([
    ...products.flatMap((p) => p.attribute_groups),
    ...familyRows.flatMap((f) => f.attribute_groups),
  ]);
  const categories = uniq(products.flatMap((p) => p.categories));
  const familyAttributes = uniq(familyRows.flatMap((f) => f.attributes.map((a) => a._id)));
  const attributeRows: AttributeDef[] = await m.query(
    `SELECT "_id", "key", "name", "type", "type_config", "unique", "required", "association", "groups", "categories" FROM "attributes"
      WHERE "deleted" = false AND ("group_ids" && $1::text[] OR "category_ids" && $2::text[] OR "_id" = ANY($3))`,
    [groups, categories, familyAttributes],
  );
  return {
    families: new Map(
      familyRows.map((f) => [f._id, { attribute_groups: f.attribute_groups, attributes: f.attributes }]),
    ),
    attributesByKey: new Map(attributeRows.map((a) => [a.key, a])),
  };
}
