import type { EntityManager } from 'typeorm';
import { lockStrings } from '@pim/db';
import { liveIds } from '@pim/records';
import type { ProductType } from '@pim/resources';
import { attributeDefs, type AttributeDef } from '../repositories/attributes.repository';
import { optionLabels } from '../repositories/attribute-options.repository';
import { familyDefs, type FamilyDef } from '../repositories/families.repository';
import { holdersOfValues, liveProductIdsSeen, liveProductTypes } from '../repositories/products.repository';
import { currentSight, sightPatterns } from '../access/product-sight';

export type { AttributeDef, FamilyDef };

/** The fields of a product the rules read (the stored columns). */
export interface ProductDraft {
  _id: string;
  code: string;
  type: ProductType;
  family_id: string | null;
  brand_id: string | null;
  product_id: string | null;
  categories: string[];
  category_trees: string[];
  catalogs: { _id: string }[];
  attribute_groups: string[];
  attributes: Record<string, unknown>;
  name: Record<string, string>;
  description: Record<string, string>;
}

/** Which product holds a unique value, by uniqueKey. */
export type TakenValues = Map<string, { _id: string; code: string }>;

/**
 * Every record a batch of products names, every attribute that may apply to them (or that
 * their values name), the options of those attributes and the unique values other products
 * hold: everything the rules check, read in a fixed number of queries whatever the batch size.
 */
export interface ProductWorld {
  families: Map<string, FamilyDef>;
  live: {
    brands: Set<string>;
    categories: Set<string>;
    category_trees: Set<string>;
    catalogs: Set<string>;
    attribute_groups: Set<string>;
  };
  /** Live products the batch names as `product_id`, with their type. */
  parents: Map<string, ProductType>;
  /**
   * Those of `parents` a restricted caller does not see: a product may keep one it already names,
   * but naming one anew is refused like naming no product (docs/decisions/access.md).
   */
  unseenParents: Set<string>;
  attributesByKey: Map<string, AttributeDef>;
  /** Live option values (→ label) of each select or multiselect attribute, by attribute id. */
  options: Map<string, Map<string, Record<string, string>>>;
  taken: TakenValues;
}

const SEPARATOR = '\u001f';

/** The key a unique value is claimed (and locked) under: the attribute key (never holding the separator) and the value as JSON. */
export const uniqueKey = (key: string, value: unknown) => `${key}${SEPARATOR}${JSON.stringify(value)}`;

/**
 * A value as it is stored: one form per instant for a datetime (UTC, `2024-01-31T15:00:00.000Z`
 * for `2024-01-31T12:00:00-03:00`), so equal instants are equal values (unique checks, filters,
 * an export imported back); any other value as given. A value that is no instant is left as is.
 */
export function storedValue(type: string | undefined, value: unknown): unknown {
  if (type !== 'datetime' || typeof value !== 'string') return value;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : value;
}

const uniq = (ids: Iterable<string | null>) => [...new Set([...ids].filter((x): x is string => x !== null))].sort();

/** Loads the world of a batch of products (see ProductWorld), inside the write's transaction. */
export async function loadWorld(m: EntityManager, drafts: ProductDraft[]): Promise<ProductWorld> {
  const families = await familyDefs(m, uniq(drafts.map((d) => d.family_id)), { lock: true });
  const live = {
    brands: await liveIds(m, 'brands', uniq(drafts.map((d) => d.brand_id))),
    categories: await liveIds(m, 'categories', uniq(drafts.flatMap((d) => d.categories))),
    category_trees: await liveIds(m, 'category_trees', uniq(drafts.flatMap((d) => d.category_trees))),
    catalogs: await liveIds(m, 'catalogs', uniq(drafts.flatMap((d) => d.catalogs.map((c) => c._id)))),
    attribute_groups: await liveIds(m, 'attribute_groups', uniq(drafts.flatMap((d) => d.attribute_groups))),
  };
  const parents = await liveProductTypes(m, uniq(drafts.map((d) => d.product_id)));
  const unseenParents = await parentsOutOfSight(m, [...parents.keys()]);
  const familyList = [...families.values()];
  const attributeRows = await attributeDefs(m, {
    groups: uniq([...drafts.flatMap((d) => d.attribute_groups), ...familyList.flatMap((f) => f.attribute_groups)]),
    categories: uniq(drafts.flatMap((d) => d.categories)),
    ids: uniq(familyList.flatMap((f) => f.attributes.map((a) => a._id))),
    keys: uniq(drafts.flatMap((d) => Object.keys(d.attributes))),
  });
  const attributesByKey = new Map(attributeRows.map((a) => [a.key, a]));
  const options = await optionLabels(
    m,
    attributeRows.filter((a) => a.type === 'select' || a.type === 'multiselect').map((a) => a._id),
  );
  const taken = await takenValues(m, drafts, attributesByKey);
  return { families, live, parents, unseenParents, attributesByKey, options, taken };
}

/** The live parents a restricted caller does not see (none for a caller who sees every product). */
async function parentsOutOfSight(m: EntityManager, parents: string[]): Promise<Set<string>> {
  const sight = await currentSight(m);
  if (!sight?.restricted || parents.length === 0) return new Set();
  const seen = new Set(await liveProductIdsSeen(m, parents, sightPatterns(sight.restricted)));
  return new Set(parents.filter((id) => !seen.has(id)));
}

/**
 * The unique values of the batch that other live products hold. Each value is locked first
 * (advisory, in order), so two writers cannot both find a value free and both take it.
 */
async function takenValues(
  m: EntityManager,
  drafts: ProductDraft[],
  attributes: Map<string, AttributeDef>,
): Promise<TakenValues> {
  const pairs = new Map<string, [string, string]>();
  for (const d of drafts) {
    for (const [key, value] of Object.entries(d.attributes)) {
      const a = attributes.get(key);
      if (value === null || value === undefined || a?.unique !== true) continue;
      const stored = storedValue(a.type, value);
      pairs.set(uniqueKey(key, stored), [key, JSON.stringify(stored)]);
    }
  }
  const taken: TakenValues = new Map();
  if (pairs.size === 0) return taken;
  await lockStrings(m, 'catalog.products.unique', pairs.keys());
  const rows = await holdersOfValues(m, [...pairs.values()]);
  for (const r of rows) taken.set(`${r.key}${SEPARATOR}${r.raw}`, { _id: r._id, code: r.code });
  return taken;
}
