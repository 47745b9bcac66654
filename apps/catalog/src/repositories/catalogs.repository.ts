import type { EntityManager } from 'typeorm';

// Every query over `catalogs` that is not the record engine's own: which ids a products filter names.

/** The live catalog ids among `ids` (no lock: a read of a list filter, not a reference being written). */
export async function liveCatalogIds(m: EntityManager, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows: { _id: string }[] = await m.query(
    `SELECT "_id" FROM "catalogs" WHERE "_id" = ANY($1) AND "deleted" = false`,
    [[...new Set(ids)]],
  );
  return new Set(rows.map((r) => r._id));
}
