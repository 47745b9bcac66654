import type { EntityManager } from 'typeorm';
import type { RequirementWorld } from '../product/product.completeness';
import { attributeDefs } from '../repositories/attributes.repository';
import { familyDefs } from '../repositories/families.repository';

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
  const families = await familyDefs(m, uniq(products.map((p) => p.family_id)), { lock: false });
  const familyList = [...families.values()];
  const attributeRows = await attributeDefs(m, {
    groups: uniq([...products.flatMap((p) => p.attribute_groups), ...familyList.flatMap((f) => f.attribute_groups)]),
    categories: uniq(products.flatMap((p) => p.categories)),
    ids: uniq(familyList.flatMap((f) => f.attributes.map((a) => a._id))),
  });
  return { families, attributesByKey: new Map(attributeRows.map((a) => [a.key, a])) };
}
