import type { EntityManager } from 'typeorm';

// Every query over `product_relations` besides the record engine's own.

/** How many live relations name a record: as their product, or as an item of their list. */
export async function relationsNaming(m: EntityManager, id: string): Promise<number> {
  const [{ n }]: { n: number }[] = await m.query(
    `SELECT count(*)::int AS n FROM "product_relations" WHERE "deleted" = false AND ("product_id" = $1 OR "items" @> jsonb_build_array(jsonb_build_object('id', $1::text)))`,
    [id],
  );
  return n;
}

/** The id of another live relation with the key (one product and type), if any. */
export async function otherRelationWithKey(
  m: EntityManager,
  key: string,
  exceptId: string,
): Promise<string | undefined> {
  const [other]: { _id: string }[] = await m.query(
    `SELECT "_id" FROM "product_relations" WHERE "key" = $1 AND "deleted" = false AND "_id" <> $2`,
    [key, exceptId],
  );
  return other?._id;
}
