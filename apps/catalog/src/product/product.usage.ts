import type { EntityManager } from 'typeorm';
import { refuseInUse } from '@pim/records';

/** The product fields that name records of other collections. */
export type ProductReferenceField =
  'family_id' | 'brand_id' | 'categories' | 'category_trees' | 'attribute_groups' | 'catalogs';

const CONDITION: Record<ProductReferenceField, string> = {
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
    `SELECT count(*)::int AS n FROM "products" WHERE "deleted" = false AND ${CONDITION[field]}`,
    [id],
  );
  return n;
}

/**
 * A delete hook refusing (409 with the count) to delete a record that live products name. Product
 * writes share-lock the records they name, and the delete holds the record's row lock, so none
 * can start naming it between the count and the commit.
 */
export function refuseDeleteNamedByProducts(label: string, field: ProductReferenceField) {
  return async (m: EntityManager, record: { _id: string; code?: string; key?: string }): Promise<void> => {
    const count = await productsNaming(m, field, record._id);
    refuseInUse(label, record.code ?? record.key ?? record._id, [
      { count, collection: 'products', query: { [field]: record._id } },
    ]);
  };
}
