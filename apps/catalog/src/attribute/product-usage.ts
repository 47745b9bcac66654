import type { EntityManager } from 'typeorm';

/** What a usage question is about: an attribute, by id and by the key product values are stored under. */
export interface UsedAttribute {
  _id: string;
  key: string;
}

/**
 * How many live products use an attribute or one of its option values: what refuses deleting
 * them (and renaming an option's value) while products hold them. Products come in the next
 * slice of the catalog, which owns these queries.
 */
export interface ProductUsage {
  /** Live products holding a value of the attribute. */
  productsWithAttribute(m: EntityManager, attribute: UsedAttribute): Promise<number>;
  /** Live products whose value of the attribute is (select) or contains (multiselect) the option value. */
  productsWithOption(m: EntityManager, attribute: UsedAttribute, value: string): Promise<number>;
}

async function productsTableExists(m: EntityManager): Promise<boolean> {
  const [{ exists }] = await m.query(`SELECT to_regclass('catalog.products') IS NOT NULL AS "exists"`);
  return exists === true;
}

/**
 * The usage counts: 0 until the products table exists. The queries below assume what the
 * products slice is to build (a `products` table with `deleted` and an `attributes` jsonb object
 * keyed by attribute key); that slice owns them and adjusts them to its table and indexes.
 */
export const productUsage: ProductUsage = {
  async productsWithAttribute(m, attribute) {
    if (!(await productsTableExists(m))) return 0;
    const [{ n }] = await m.query(`SELECT count(*)::int AS n FROM "products" WHERE "deleted" = false AND "attributes" ? $1`, [attribute.key]);
    return n;
  },
  async productsWithOption(m, attribute, value) {
    if (!(await productsTableExists(m))) return 0;
    const [{ n }] = await m.query(
      `SELECT count(*)::int AS n FROM "products" WHERE "deleted" = false AND ("attributes" -> $1 = to_jsonb($2::text) OR "attributes" -> $1 @> jsonb_build_array($2::text))`,
      [attribute.key, value],
    );
    return n;
  },
};
