import type { EntityManager } from 'typeorm';

// Every query over `exports` the record engine does not run: the worker's progress and the
// retention sweep.

/** What an export has written so far. */
export interface ExportProgress {
  total_products: number;
  total_field_failed: number;
  total_item_failed: number;
  rows: number;
}

/**
 * Shows a running export's progress (its counts so far) while it is `in_progress`; a new version,
 * so ETags change with progress, and no event (the final counts come with `exports.completed`).
 */
export async function recordProgress(m: EntityManager, exportId: string, p: ExportProgress): Promise<void> {
  await m.query(
    `UPDATE "exports" SET "metadata" = $2, "rows_count" = $3, "version" = "version" + 1, "updated_at" = now()
      WHERE "_id" = $1 AND "status" = 'in_progress' AND deleted = false`,
    [
      exportId,
      {
        total_products: p.total_products,
        total_field_failed: p.total_field_failed,
        total_item_failed: p.total_item_failed,
      },
      p.rows,
    ],
  );
}

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
