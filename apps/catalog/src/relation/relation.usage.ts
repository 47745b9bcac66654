import type { EntityManager } from 'typeorm';
import { refuseInUse } from '@pim/records';

/** How many live relations name a record: as their product, or as an item of their list. */
export async function relationsNaming(m: EntityManager, id: string): Promise<number> {
  const [{ n }]: { n: number }[] = await m.query(
    `SELECT count(*)::int AS n FROM "product_relations" WHERE "deleted" = false AND ("product_id" = $1 OR "items" @> jsonb_build_array(jsonb_build_object('id', $1::text)))`,
    [id],
  );
  return n;
}

/**
 * A delete hook refusing (409 with the count) to delete a product or category that live relations
 * name. Relation writes share-lock what they name and the delete holds the record's row lock, so
 * none can start naming it between the count and the commit.
 */
export function refuseDeleteNamedByRelations(label: string) {
  return async (m: EntityManager, record: { _id: string; code?: string }): Promise<void> => {
    const count = await relationsNaming(m, record._id);
    refuseInUse(label, record.code ?? record._id, [
      {
        count,
        collection: 'product_relations',
        query: { product_id: record._id },
        more: 'and the relations whose lists name it',
      },
    ]);
  };
}
