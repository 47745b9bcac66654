import type { EntityManager } from 'typeorm';

// Every query over `imports` the record engine does not run: the worker's checkpoint.

/** What a batch changed: its rows, how many the catalog stored and refused, and where the next batch starts. */
export interface BatchOutcome {
  importId: string;
  /** The batch's first sheet row: the checkpoint it starts from. */
  fromRow: number;
  nextRow: number;
  processed: number;
  committed: number;
  failed: number;
}

/**
 * Records a batch's outcome on its import: counts added and the checkpoint moved past the batch,
 * only if the checkpoint is still where the batch began (another worker that resumed the same
 * import and got there first leaves this one nothing to record). A new version, so ETags change
 * with progress. Returns the import's state after, or undefined when the batch was recorded before.
 */
export async function recordBatch(m: EntityManager, o: BatchOutcome): Promise<string | undefined> {
  const rows: { status: string }[] = await m.query(
    // Through a CTE: an UPDATE's RETURNING rows come back as plain rows only from a SELECT.
    `WITH u AS (
       UPDATE "imports" SET "proccess_count" = "proccess_count" + $3, "commit_count" = "commit_count" + $4,
              "errors_count" = "errors_count" + $5, "next_row" = $6, "version" = "version" + 1, "updated_at" = now()
        WHERE "_id" = $1 AND "next_row" = $2 AND deleted = false RETURNING "status")
     SELECT * FROM u`,
    [o.importId, o.fromRow, o.processed, o.committed, o.failed, o.nextRow],
  );
  return rows[0]?.status;
}
