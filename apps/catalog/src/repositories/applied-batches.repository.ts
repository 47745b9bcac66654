import type { EntityManager } from 'typeorm';

// Every query over `applied_batches`: the ledger of bulk upserts sent under a batch id.

/** One item's outcome as the ledger keeps it (ids are not kept: a resent batch answers without them). */
export interface LedgerItem {
  status: string;
  error?: unknown;
}

/**
 * Takes a batch id for the running transaction: true when it was free (this transaction applies
 * the batch), false when it was applied before. A concurrent transaction holding the same id makes
 * this wait for its end: it then finds the row (committed) or takes the id (rolled back).
 */
export async function takeBatch(m: EntityManager, batchId: string): Promise<boolean> {
  const rows: unknown[] = await m.query(
    `INSERT INTO "applied_batches" ("batch_id", "applied_at", "results") VALUES ($1, now(), '[]')
     ON CONFLICT ("batch_id") DO NOTHING RETURNING "batch_id"`,
    [batchId],
  );
  return rows.length === 1;
}

/** The outcomes recorded for a batch applied before. */
export async function batchResults(m: EntityManager, batchId: string): Promise<LedgerItem[]> {
  const rows: { results: LedgerItem[] }[] = await m.query(
    `SELECT "results" FROM "applied_batches" WHERE "batch_id" = $1`,
    [batchId],
  );
  return rows[0]?.results ?? [];
}

/** Records the outcomes of the batch this transaction applies. */
export async function recordBatch(m: EntityManager, batchId: string, results: LedgerItem[]): Promise<void> {
  await m.query(`UPDATE "applied_batches" SET "results" = $2 WHERE "batch_id" = $1`, [
    batchId,
    JSON.stringify(results),
  ]);
}

/** Forgets batches applied before `before` (at most `limit` of them); returns how many. */
export async function forgetBatches(m: EntityManager, before: Date, limit: number): Promise<number> {
  const rows: unknown[] = await m.query(
    `DELETE FROM "applied_batches" WHERE "batch_id" IN
       (SELECT "batch_id" FROM "applied_batches" WHERE "applied_at" < $1 ORDER BY "applied_at" LIMIT $2)
     RETURNING 1`,
    [before, limit],
  );
  return rows.length;
}
