import type { EntityManager } from 'typeorm';

/** What a usage question is about: an attribute, by id and by the key product values are stored under. */
export interface UsedAttribute {
  _id: string;
  key: string;
}

/**
 * How many live products use an attribute or one of its option values: what refuses deleting
 * them (and renaming an option's value) while products hold them. The products slice owns these queries.
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
