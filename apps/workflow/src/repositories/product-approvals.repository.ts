import type { DataSource, EntityManager } from 'typeorm';

// The queries over workflow.product_approvals that the record engine does not run: the queue of
// approved changes on their way to the catalog, and the products a caller's sight is worked out from.

/** The NOTIFY channel that wakes the appliers of every replica: an approval was approved. */
export const APPLY_CHANNEL = 'workflow_product_approvals_apply';

/** Wakes the appliers when the transaction commits. */
export async function notifyAppliers(m: EntityManager): Promise<void> {
  await m.query(`SELECT pg_notify($1, '')`, [APPLY_CHANNEL]);
}

/**
 * Takes up to `limit` approvals whose application is pending and due, for `leaseMs`: their
 * `apply_after` moves past the lease, so no other replica takes them meanwhile; one that dies
 * holding them leaves them to be taken again when the lease runs out.
 */
export async function claimDueApplications(ds: DataSource, limit: number, leaseMs: number): Promise<string[]> {
  const rows: { _id: string }[] = await ds.query(
    // A data-modifying CTE read by a SELECT, so the driver answers rows (an UPDATE answers a count beside them).
    `WITH taken AS (
       UPDATE "product_approvals" SET "apply_after" = now() + $2 * interval '1 millisecond'
        WHERE "_id" IN (
          SELECT "_id" FROM "product_approvals"
           WHERE "application" ->> 'status' = 'pending' AND "deleted" = false
             AND ("apply_after" IS NULL OR "apply_after" <= now())
           ORDER BY "apply_after" NULLS FIRST, "_id"
           LIMIT $1
           FOR UPDATE SKIP LOCKED)
        RETURNING "_id")
     SELECT "_id" FROM taken`,
    [limit, leaseMs],
  );
  return rows.map((r) => r._id);
}

/** Puts a pending application off for `delayMs` (the catalog did not answer). */
export async function deferApplication(ds: DataSource, id: string, delayMs: number): Promise<void> {
  await ds.query(
    `UPDATE "product_approvals" SET "apply_after" = now() + $2 * interval '1 millisecond'
      WHERE "_id" = $1 AND "application" ->> 'status' = 'pending'`,
    [id, delayMs],
  );
}

/** How long until the next pending application is due (null: none is pending). */
export async function nextApplicationDue(ds: DataSource): Promise<number | null> {
  const rows: { wait_ms: number | null }[] = await ds.query(
    `SELECT GREATEST(0, EXTRACT(EPOCH FROM (min(COALESCE("apply_after", now())) - now())) * 1000)::float8 AS wait_ms
       FROM "product_approvals" WHERE "application" ->> 'status' = 'pending' AND "deleted" = false`,
  );
  return rows[0]?.wait_ms ?? null;
}

/** The products of the live product approvals, distinct; with `about`, of those approvals alone (live or not). */
export async function approvalProductIds(m: EntityManager, about?: readonly string[]): Promise<string[]> {
  const rows: { product_id: string }[] = about
    ? await m.query(`SELECT DISTINCT "product_id" FROM "product_approvals" WHERE "_id" = ANY($1)`, [about])
    : await m.query(`SELECT DISTINCT "product_id" FROM "product_approvals" WHERE "deleted" = false`);
  return rows.map((r) => r.product_id);
}
