import type { EntityManager } from 'typeorm';

// Every query over `exports` the record engine does not run: the retention sweep.

/**
 * Takes up to `limit` exports whose file is past its retention (or whose export was deleted) and
 * not yet removed, locked for this transaction (other replicas skip them), and marks them
 * removed; the caller removes their files before the transaction commits.
 */
export async function takeExpiredFiles(m: EntityManager, limit: number): Promise<{ _id: string; file_key: string }[]> {
  return m.query(
    `WITH due AS (
       SELECT "_id" FROM "exports"
        WHERE "file_removed_at" IS NULL AND ("expires_at" <= now() OR deleted = true)
        ORDER BY "expires_at" NULLS FIRST LIMIT $1 FOR UPDATE SKIP LOCKED),
     u AS (UPDATE "exports" e SET "file_removed_at" = now() FROM due WHERE e."_id" = due."_id" RETURNING e."_id", e."file_key")
     SELECT * FROM u`,
    [limit],
  );
}
