import type { EntityManager } from 'typeorm';

// Every query over `applied_changes`: the ledger of change requests applied to products.

/** A change as the ledger keeps it. */
export interface AppliedChange {
  applied_at: Date;
  product_version: number;
}

/**
 * Takes a change id for the running transaction: true when it was free (this transaction applies
 * the change), false when the change was applied before. A concurrent transaction holding the same
 * id makes this wait for its end: it then finds the row (committed) or takes the id (rolled back).
 */
export async function takeChange(m: EntityManager, changeId: string, productId: string): Promise<boolean> {
  const rows: unknown[] = await m.query(
    `INSERT INTO "applied_changes" ("change_id", "product_id", "applied_at", "product_version")
     VALUES ($1, $2, now(), 0) ON CONFLICT ("change_id") DO NOTHING RETURNING "change_id"`,
    [changeId, productId],
  );
  return rows.length === 1;
}

/** The ledger's row of an applied change. */
export async function appliedChange(m: EntityManager, changeId: string): Promise<AppliedChange> {
  const rows: AppliedChange[] = await m.query(
    `SELECT "applied_at", "product_version" FROM "applied_changes" WHERE "change_id" = $1`,
    [changeId],
  );
  return rows[0];
}

/** Records when the change was applied and the product's version after it. */
export async function finishChange(m: EntityManager, changeId: string, change: AppliedChange): Promise<void> {
  await m.query(`UPDATE "applied_changes" SET "applied_at" = $2, "product_version" = $3 WHERE "change_id" = $1`, [
    changeId,
    change.applied_at,
    change.product_version,
  ]);
}
