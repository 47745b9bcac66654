import { In, type EntityManager, type EntityMetadata, type SelectQueryBuilder } from 'typeorm';
import { copyColumnsOf, copyInto } from '@pim/db';
import type { ProductType } from '@pim/resources';
import { ProductEntity } from '../entities/product.entity';

// Every query over `products` that is not the record engine's own: what other records' rules ask
// about products (usage counts), what the product rules read, the bulk writes, the attribute and
// catalog filters, what DescribeProducts aggregates and the completeness recompute's reads (its
// writes go through the record engine).

/** The product fields that name records of other collections. */
export type ProductReferenceField =
  'family_id' | 'brand_id' | 'categories' | 'category_trees' | 'attribute_groups' | 'catalogs';

const NAMING: Record<ProductReferenceField, string> = {
  family_id: `"family_id" = $1`,
  brand_id: `"brand_id" = $1`,
  categories: `"categories" @> ARRAY[$1]::text[]`,
  category_trees: `"category_trees" @> ARRAY[$1]::text[]`,
  attribute_groups: `"attribute_groups" @> ARRAY[$1]::text[]`,
  catalogs: `"catalogs" @> jsonb_build_array(jsonb_build_object('_id', $1::text))`,
};

/** How many live products name a record in one of their reference fields. */
export async function productsNaming(m: EntityManager, field: ProductReferenceField, id: string): Promise<number> {
  const [{ n }]: { n: number }[] = await m.query(
    `SELECT count(*)::int AS n FROM "products" WHERE "deleted" = false AND ${NAMING[field]}`,
    [id],
  );
  return n;
}

/** How many live variations name a product as their parent. */
export async function variationsOf(m: EntityManager, productId: string): Promise<number> {
  const [{ n }]: { n: number }[] = await m.query(
    `SELECT count(*)::int AS n FROM "products" WHERE "product_id" = $1 AND "deleted" = false`,
    [productId],
  );
  return n;
}

/** Locks a live product's row for the running transaction; false when no live product has the id. */
export async function lockLiveProduct(m: EntityManager, id: string): Promise<boolean> {
  const rows: unknown[] = await m.query(
    `SELECT "_id" FROM "products" WHERE "_id" = $1 AND "deleted" = false FOR UPDATE`,
    [id],
  );
  return rows.length === 1;
}

/**
 * Whether a restricted caller sees a live product: `true`, `false` (live but out of sight), or
 * undefined when no live product has the id. `patterns` are the caller's sight patterns.
 */
export async function liveProductSeen(m: EntityManager, id: string, patterns: string[]): Promise<boolean | undefined> {
  const [row]: { seen: boolean }[] = await m.query(
    `SELECT "catalogs" @> ANY(CAST($2 AS jsonb[])) AS "seen" FROM "products" WHERE "_id" = $1 AND "deleted" = false`,
    [id, patterns],
  );
  return row?.seen;
}

/**
 * The live products among `ids`, in id order; with `patterns`, only those whose `catalogs`
 * contain one of them (a restricted caller's sight).
 */
export async function liveProductIdsSeen(m: EntityManager, ids: string[], patterns?: string[]): Promise<string[]> {
  if (ids.length === 0 || patterns?.length === 0) return [];
  const rows: { _id: string }[] = await m.query(
    `SELECT "_id" FROM "products" WHERE "_id" = ANY($1) AND "deleted" = false${patterns ? ` AND "catalogs" @> ANY(CAST($2 AS jsonb[]))` : ''} ORDER BY "_id"`,
    patterns ? [ids, patterns] : [ids],
  );
  return rows.map((r) => r._id);
}

/** The codes of the products (live or deleted) with these ids; none for an id no product has. */
export async function productCodesOf(m: EntityManager, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows: { code: string }[] = await m.query(`SELECT "code" FROM "products" WHERE "_id" = ANY($1)`, [ids]);
  return rows.map((r) => r.code);
}

/** The types of the live products among `ids`, share-locked (in id order) until the transaction ends. */
export async function liveProductTypes(m: EntityManager, ids: string[]): Promise<Map<string, ProductType>> {
  const wanted = [...new Set(ids)].sort();
  if (wanted.length === 0) return new Map();
  const rows: { _id: string; type: ProductType }[] = await m.query(
    `SELECT "_id", "type" FROM "products" WHERE "_id" = ANY($1) AND "deleted" = false ORDER BY "_id" FOR SHARE`,
    [wanted],
  );
  return new Map(rows.map((r) => [r._id, r.type]));
}

/** A live product holding a value of an attribute: `raw` is the value as JSON. */
export interface ValueHolder {
  _id: string;
  code: string;
  key: string;
  raw: string;
}

/** The live products holding each (attribute key, value as JSON) pair: one containment query, GIN-served. */
export async function holdersOfValues(m: EntityManager, pairs: [key: string, raw: string][]): Promise<ValueHolder[]> {
  if (pairs.length === 0) return [];
  return m.query(
    `SELECT p."_id", p."code", k.key, k.raw FROM unnest($1::text[], $2::text[]) AS k(key, raw)
       JOIN "products" p ON p."deleted" = false AND p."attributes" @> jsonb_build_object(k.key, k.raw::jsonb)`,
    [pairs.map(([k]) => k), pairs.map(([, raw]) => raw)],
  );
}

/** What refuses deleting an attribute, or an option value, while live products hold it. */
export interface UsedAttribute {
  _id: string;
  key: string;
}

/**
 * How many live products use an attribute or one of its option values: what refuses deleting
 * them (and renaming an option's value) while products hold them. An interface so a test can
 * stand in a count.
 */
export interface ProductUsage {
  /** Live products holding a value of the attribute. */
  productsWithAttribute(m: EntityManager, attribute: UsedAttribute): Promise<number>;
  /** Live products whose value of the attribute is (select) or contains (multiselect) the option value. */
  productsWithOption(m: EntityManager, attribute: UsedAttribute, value: string): Promise<number>;
}

/**
 * The usage counts, over live products' `attributes` (keyed by attribute key). Both questions are
 * containment tests that the products' GIN index on `attributes` answers.
 */
export const productUsage: ProductUsage = {
  async productsWithAttribute(m, attribute) {
    const [{ n }] = await m.query(
      `SELECT count(*)::int AS n FROM "products" WHERE "deleted" = false AND "attributes" ? $1`,
      [attribute.key],
    );
    return n;
  },
  async productsWithOption(m, attribute, value) {
    const [{ n }] = await m.query(
      `SELECT count(*)::int AS n FROM "products" WHERE "deleted" = false
        AND ("attributes" @> jsonb_build_object($1::text, $2::text) OR "attributes" @> jsonb_build_object($1::text, jsonb_build_array($2::text)))`,
      [attribute.key, value],
    );
    return n;
  },
};

/** One `attributes.<key>` filter, checked and typed (see product.filters), ready to become SQL. */
export type AttributeClause =
  | { kind: 'exists'; key: string; present: boolean }
  | {
      kind: 'range';
      key: string;
      op: 'gt' | 'gte' | 'lt' | 'lte';
      cast: 'numeric' | 'date' | 'timestamptz';
      value: string;
    }
  | { kind: 'match'; key: string; values: unknown[]; localizable: boolean; multiselect: boolean; negate: boolean };

const COMPARE = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/**
 * Adds attribute filters to a product list (alias `t`): `exists` tests the key, `range` compares
 * the value cast to its type, `match` is containment on `attributes` (GIN-served; a multiselect
 * matches when it contains the value) or, for a localizable text, any language equal to it.
 */
export function whereAttributes(qb: SelectQueryBuilder<ProductEntity>, clauses: AttributeClause[]): void {
  clauses.forEach((c, i) => {
    const k = `af_k${i}`;
    if (c.kind === 'exists') {
      qb.andWhere(`(t.attributes -> :${k}) IS ${c.present ? 'NOT ' : ''}NULL`, { [k]: c.key });
      return;
    }
    if (c.kind === 'range') {
      const v = `af_v${i}`;
      qb.andWhere(`(t.attributes ->> :${k})::${c.cast} ${COMPARE[c.op]} CAST(:${v} AS ${c.cast})`, {
        [k]: c.key,
        [v]: c.value,
      });
      return;
    }
    const parts = c.values.map((value, j) => {
      const p = `af_v${i}_${j}`;
      if (c.localizable)
        return {
          sql: `EXISTS (SELECT 1 FROM jsonb_each_text(t.attributes -> :${k}) AS e WHERE e.value = :${p})`,
          params: { [p]: value },
        };
      const contained = { [c.key]: c.multiselect ? [value] : value };
      return { sql: `t.attributes @> CAST(:${p} AS jsonb)`, params: { [p]: JSON.stringify(contained) } };
    });
    const any = `(${parts.map((x) => x.sql).join(' OR ')})`;
    qb.andWhere(c.negate ? `NOT ${any}` : any, Object.assign({ [k]: c.key }, ...parts.map((x) => x.params)));
  });
}

/** One `catalog_id` filter, checked (see product.filters), ready to become SQL. */
export type CatalogClause = { kind: 'member'; ids: string[]; negate: boolean } | { kind: 'exists'; present: boolean };

/**
 * Adds catalog filters to a product list (alias `t`): `member` is containment of `{_id}` in
 * `catalogs` for any of the ids (negated: for none of them); `exists` whether it holds any entry.
 */
export function whereCatalogs(qb: SelectQueryBuilder<ProductEntity>, clauses: CatalogClause[]): void {
  clauses.forEach((c, i) => {
    if (c.kind === 'exists') {
      qb.andWhere(`t.catalogs ${c.present ? '<>' : '='} '[]'::jsonb`);
      return;
    }
    const p = `cf_${i}`;
    const member = `t.catalogs @> ANY(CAST(:${p} AS jsonb[]))`;
    qb.andWhere(c.negate ? `NOT (${member})` : member, { [p]: c.ids.map((id) => JSON.stringify([{ _id: id }])) });
  });
}

/** What a set of products holds: how many, the languages of their texts and their attribute keys, sorted. */
export interface ProductsContent {
  total: number;
  languages: string[];
  attribute_keys: string[];
}

/** The keys of a jsonb value that is an object; none for any other value (NULL, a string, an array). */
const keysOf = (value: string) => `jsonb_object_keys(CASE jsonb_typeof(${value}) WHEN 'object' THEN ${value} END)`;

/**
 * What the products a query matches hold (`matching`: RecordService.matching), in one pass over
 * them that keeps nothing but the distinct keys: each product gives one row for the count, the
 * language keys of its name, its description and its values of the `localizable` attributes, and
 * its attribute keys; Postgres groups them.
 */
export async function productsContent(
  m: EntityManager,
  matching: SelectQueryBuilder<ProductEntity>,
  localizable: string[],
): Promise<ProductsContent> {
  const [sql, params] = matching
    .clone()
    .select('t.name', 'name')
    .addSelect('t.description', 'description')
    .addSelect('t.attributes', 'attributes')
    .getQueryAndParameters();
  const rows: { kind: 'product' | 'language' | 'attribute'; key: string | null; n: string }[] = await m.query(
    `SELECT d.kind, d.key, count(*) AS n FROM (${sql}) p CROSS JOIN LATERAL (
        SELECT 'product' AS kind, NULL::text AS key
        UNION ALL SELECT 'language', ${keysOf('p.name')}
        UNION ALL SELECT 'language', ${keysOf('p.description')}
        UNION ALL SELECT 'language', ${keysOf('a.value')} FROM jsonb_each(p.attributes) a WHERE a.key = ANY($${params.length + 1})
        UNION ALL SELECT 'attribute', ${keysOf('p.attributes')}
      ) d GROUP BY d.kind, d.key`,
    [...params, localizable],
  );
  const keys = (kind: string) => rows.flatMap((r) => (r.kind === kind && r.key !== null ? [r.key] : [])).sort();
  return {
    total: Number(rows.find((r) => r.kind === 'product')?.n ?? 0),
    languages: keys('language'),
    attribute_keys: keys('attribute'),
  };
}

/** The live products with these codes, row-locked for update, by `_id`. */
export function liveProductsByCodeForUpdate(m: EntityManager, codes: string[]): Promise<ProductEntity[]> {
  return m.find(ProductEntity, {
    where: { code: In(codes), deleted: false },
    lock: { mode: 'pessimistic_write' },
    order: { _id: 'ASC' },
  });
}

/**
 * Columns a bulk write sets: every column of the table the entity declares, but those Postgres
 * generates (`search_folded`); `_id` is the conflict's survivor. Read from the entity's metadata,
 * so a field added to the declaration is written with no change here.
 */
function writtenColumns(metadata: EntityMetadata): { names: string[]; list: string; set: string } {
  const names = metadata.columns.filter((c) => c.isInsert && !c.generatedType).map((c) => c.databaseName);
  return {
    names,
    list: names.map((c) => `"${c}"`).join(', '),
    set: names
      .filter((c) => c !== '_id')
      .map((c) => `"${c}" = EXCLUDED."${c}"`)
      .join(', '),
  };
}

const column = (entity: ProductEntity, c: string) => (entity as unknown as Record<string, unknown>)[c] ?? null;

/**
 * Writes a checked batch: new products with one COPY (their codes are locked and none is live, so
 * no conflict can arise), replaced ones with one INSERT … ON CONFLICT on the live code.
 */
export async function writeProductBatch(
  m: EntityManager,
  created: ProductEntity[],
  replaced: ProductEntity[],
): Promise<void> {
  const metadata = m.connection.getMetadata(ProductEntity);
  const { names, list, set } = writtenColumns(metadata);
  if (created.length > 0) {
    await copyInto(
      m,
      'products',
      copyColumnsOf(metadata, names),
      created.map((entity) => names.map((c) => column(entity, c))),
    );
  }
  if (replaced.length > 0) {
    const rows = replaced.map((entity) => Object.fromEntries(names.map((c) => [c, column(entity, c)])));
    await m.query(
      `INSERT INTO "products" (${list}) SELECT ${list} FROM jsonb_populate_recordset(NULL::"products", $1::jsonb)
        ON CONFLICT ("code") WHERE "deleted" = false DO UPDATE SET ${set}`,
      [JSON.stringify(rows)],
    );
  }
}

/** Which live products a completeness recompute walks: holding one of the groups or categories, or in one of the families. */
export interface ProductScope {
  group_ids: string[];
  category_ids: string[];
  family_ids: string[];
}

/** The next `limit` live products of a scope after `after`, by `_id` (keyset: no OFFSET, each batch one indexed query). */
export async function productsInScope(
  m: EntityManager,
  scope: ProductScope,
  after: string | null,
  limit: number,
): Promise<ProductEntity[]> {
  const ors: string[] = [];
  if (scope.group_ids.length > 0) ors.push('p.attribute_groups && :groups');
  if (scope.category_ids.length > 0) ors.push('p.categories && :categories');
  if (scope.family_ids.length > 0) ors.push('p.family_id = ANY(:families)');
  if (ors.length === 0) return [];
  const qb = m
    .createQueryBuilder(ProductEntity, 'p')
    .where('p.deleted = false')
    .andWhere(`(${ors.join(' OR ')})`, {
      groups: scope.group_ids,
      categories: scope.category_ids,
      families: scope.family_ids,
    });
  if (after !== null) qb.andWhere('p._id > :after', { after });
  return qb.orderBy('p._id', 'ASC').limit(limit).getMany();
}

/** The live products among `ids`, by `_id`. */
export function liveProductsByIds(m: EntityManager, ids: string[]): Promise<ProductEntity[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return m
    .createQueryBuilder(ProductEntity, 'p')
    .where('p._id IN (:...ids)', { ids })
    .andWhere('p.deleted = false')
    .orderBy('p._id', 'ASC')
    .getMany();
}

/**
 * The condition, for another table's query, that the product its column names is live and its
 * `catalogs` contain one of the patterns in the named parameter (a restricted caller's sight).
 */
export function productSeenWhere(productIdColumn: string, patternsParam: string): string {
  return `EXISTS (SELECT 1 FROM "products" p WHERE p."_id" = ${productIdColumn} AND p."deleted" = false AND p."catalogs" @> ANY(CAST(:${patternsParam} AS jsonb[])))`;
}
