import type { DataSource } from 'typeorm';

// The queries over orders.orders that the record engine does not run.

/** Live orders that follow a workflow and have not reached a final status. */
export async function countOpenOrders(ds: DataSource, workflowId: string): Promise<number> {
  const rows: { n: number }[] = await ds.query(
    `SELECT count(*)::int AS n FROM "orders" WHERE "workflow_id" = $1 AND "deleted" = false AND "final_status_type" IS NULL`,
    [workflowId],
  );
  return rows[0].n;
}
