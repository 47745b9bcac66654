import type { EntityManager } from 'typeorm';
import type { AttributeAssociation, AttributeType, ProductType, TypeConfig } from '@pim/resources';
import type { AttributeLink } from '../attribute/attribute.entity';

/** What the rules need of an attribute. */
export interface AttributeDef {
  _id: string;
  key: string;
  name: Record<string, string>;
  type: AttributeType;
  type_config: TypeConfig;
  unique: boolean;
  required: boolean;
  association: AttributeAssociation;
  groups: AttributeLink[];
  categories: AttributeLink[];
}

/** What the rules need of a family. */
export interface FamilyDef {
  attribute_groups: string[];
  attributes: { _id: string; required: boolean }[];
}

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
  attributesByKey: Map<string, AttributeDef>;
  /** Live option values (→ label) of each select or multiselect attribute, by attribute id. */
  options: Map<string, Map<string, Record<string, string>>>;
  taken: TakenValues;
}

const SEPARATOR = '\u001f';

/** The key a unique value is claimed (and locked) under: the attribute key (never holding the separator) and the value as JSON. */
export const uniqueKey = (key: string, value: unknown) => `${key}${SEPARATOR}${JSON.stringify(value)}`;

const uniq = (ids: Iterable<string | null>) => [...new Set([...ids].filter((x): x is string => x !== null))].sort();

/**
 * Live ids among `ids`, share-locked (in id order, so writers lock alike) so none can be
 * deleted before the transaction ends.
 */
async function liveIds(m: EntityManager, table: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows: { _id: string }[] = await m.query(
    `SELECT "_id" FROM "${table}" WHERE "_id" = ANY($1) AND "deleted" = false ORDER BY "_id" FOR SHARE`,
    [ids],
  );
  return new Set(rows.map((r) => r._id));
}

/** Takes transaction-scoped advisory locks on some strings, in order (so writers never deadlock on them). */
export async function lockStrings(m: EntityManager, namespace: string, values: string[]): Promise<void> {
  const sorted = [...new Set(values)].sort();
  if (sorted.length === 0) return;
  await m.query(
    `SELECT pg_advisory_xact_lock(hashtext($1 || s.v)) FROM (SELECT v FROM unnest($2::text[]) AS v ORDER BY v) AS s`,
    [`${namespace}:`, sorted],
  );
}

/** Loads the world of a batch of products (see ProductWorld), inside the write's transaction. */
export async function loadWorld(m: EntityManager, drafts: ProductDraft[]): Promise<ProductWorld> {
  const familyRows: ({ _id: string } & FamilyDef)[] = await (async () => {
    const ids = uniq(drafts.map((d) => d.family_id));
    if (ids.length === 0) return [];
    return m.query(
      `SELECT "_id", "attribute_groups", "attributes" FROM "families" WHERE "_id" = ANY($1) AND "deleted" = false ORDER BY "_id" FOR SHARE`,
      [ids],
    );
  })();
  const families = new Map(
    familyRows.map((f) => [f._id, { attribute_groups: f.attribute_groups, attributes: f.attributes }]),
  );
  const live = {
    brands: await liveIds(m, 'brands', uniq(drafts.map((d) => d.brand_id))),
    categories: await liveIds(m, 'categories', uniq(drafts.flatMap((d) => d.categories))),
    category_trees: await liveIds(m, 'category_trees', uniq(drafts.flatMap((d) => d.category_trees))),
    catalogs: await liveIds(m, 'catalogs', uniq(drafts.flatMap((d) => d.catalogs.map((c) => c._id)))),
    attribute_groups: await liveIds(m, 'attribute_groups', uniq(drafts.flatMap((d) => d.attribute_groups))),
  };
  const parentIds = uniq(drafts.map((d) => d.product_id));
  const parentRows: { _id: string; type: ProductType }[] =
    parentIds.length === 0
      ? []
      : await m.query(
          `SELECT "_id", "type" FROM "products" WHERE "_id" = ANY($1) AND "deleted" = false ORDER BY "_id" FOR SHARE`,
          [parentIds],
        );

  const groups = uniq([...drafts.flatMap((d) => d.attribute_groups), ...familyRows.flatMap((f) => f.attribute_groups)]);
  const categories = uniq(drafts.flatMap((d) => d.categories));
  const familyAttributes = uniq(familyRows.flatMap((f) => f.attributes.map((a) => a._id)));
  const keys = uniq(drafts.flatMap((d) => Object.keys(d.attributes)));
  const attributeRows: AttributeDef[] = await m.query(
    `SELECT "_id", "key", "name", "type", "type_config", "unique", "required", "association", "groups", "categories" FROM "attributes"
      WHERE "deleted" = false AND ("group_ids" && $1::text[] OR "category_ids" && $2::text[] OR "_id" = ANY($3) OR "key" = ANY($4))`,
    [groups, categories, familyAttributes, keys],
  );
  const attributesByKey = new Map(attributeRows.map((a) => [a.key, a]));

  const optionAttributes = attributeRows
    .filter((a) => a.type === 'select' || a.type === 'multiselect')
    .map((a) => a._id);
  const options = new Map<string, Map<string, Record<string, string>>>(optionAttributes.map((id) => [id, new Map()]));
  if (optionAttributes.length > 0) {
    const rows: { attribute_id: string; value: string; label: Record<string, string> }[] = await m.query(
      `SELECT "attribute_id", "value", "label" FROM "attribute_options" WHERE "deleted" = false AND "attribute_id" = ANY($1)`,
      [optionAttributes],
    );
    for (const r of rows) options.get(r.attribute_id)?.set(r.value, r.label);
  }

  const taken = await takenValues(m, drafts, attributesByKey);
  return { families, live, parents: new Map(parentRows.map((p) => [p._id, p.type])), attributesByKey, options, taken };
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
      if (value === null || value === undefined || attributes.get(key)?.unique !== true) continue;
      pairs.set(uniqueKey(key, value), [key, JSON.stringify(value)]);
    }
  }
  const taken: TakenValues = new Map();
  if (pairs.size === 0) return taken;
  await lockStrings(m, 'catalog.products.unique', [...pairs.keys()]);
  const list = [...pairs.values()];
  const rows: { _id: string; code: string; key: string; raw: string }[] = await m.query(
    `SELECT p."_id", p."code", k.key, k.raw FROM unnest($1::text[], $2::text[]) AS k(key, raw)
       JOIN "products" p ON p."deleted" = false AND p."attributes" @> jsonb_build_object(k.key, k.raw::jsonb)`,
    [list.map(([k]) => k), list.map(([, raw]) => raw)],
  );
  for (const r of rows) taken.set(`${r.key}${SEPARATOR}${r.raw}`, { _id: r._id, code: r.code });
  return taken;
}
