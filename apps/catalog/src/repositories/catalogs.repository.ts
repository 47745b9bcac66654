import type { EntityManager } from 'typeorm';

// Every query over `catalogs` that is not the record engine's own: which ids a products filter names, which catalogs a user sees.

/** The live catalog ids among `ids` (no lock: a read of a list filter, not a reference being written). */
export async function liveCatalogIds(m: EntityManager, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows: { _id: string }[] = await m.query(
    `SELECT "_id" FROM "catalogs" WHERE "_id" = ANY($1) AND "deleted" = false`,
    [[...new Set(ids)]],
  );
  return new Set(rows.map((r) => r._id));
}

/** The live catalogs whose `user_groups` name one of the groups, sorted. */
export async function catalogsSeenBy(m: EntityManager, groups: string[]): Promise<string[]> {
  if (groups.length === 0) return [];
  const rows: { _id: string }[] = await m.query(
    `SELECT "_id" FROM "catalogs" WHERE "deleted" = false AND "user_groups" && $1::text[] ORDER BY "_id"`,
    [groups],
  );
  return rows.map((r) => r._id);
}
