import type { EntityManager } from 'typeorm';
import type { Cell } from '@pim/sheets';

// Every query over `import_errors`: the rows an import could not store.

/** A refused row: its number, cells as read and problems in words. */
export interface RefusedRow {
  row_number: number;
  cells: Cell[];
  problems: string;
}

/** Keeps a batch's refused rows (a row kept before stays as it was). */
export async function keepRefusedRows(m: EntityManager, importId: string, rows: RefusedRow[]): Promise<void> {
  if (rows.length === 0) return;
  await m.query(
    `INSERT INTO "import_errors" ("import_id", "row_number", "cells", "problems")
     SELECT $1, r.row_number, r.cells, r.problems
       FROM jsonb_to_recordset($2::jsonb) AS r(row_number integer, cells jsonb, problems text)
     ON CONFLICT ("import_id", "row_number") DO NOTHING`,
    [importId, JSON.stringify(rows)],
  );
}

/** An import's refused rows in sheet order, a page at a time (keyset on the row number). */
export async function* refusedRows(m: EntityManager, importId: string, pageSize = 1_000): AsyncGenerator<RefusedRow[]> {
  for (let after = 0; ;) {
    const page: RefusedRow[] = await m.query(
      `SELECT "row_number", "cells", "problems" FROM "import_errors"
        WHERE "import_id" = $1 AND "row_number" > $2 ORDER BY "row_number" LIMIT $3`,
      [importId, after, pageSize],
    );
    if (page.length > 0) yield page;
    if (page.length < pageSize) return;
    after = page[page.length - 1].row_number;
  }
}

/** Forgets an import's refused rows (the import was deleted). */
export async function forgetRefusedRows(m: EntityManager, importId: string): Promise<void> {
  await m.query(`DELETE FROM "import_errors" WHERE "import_id" = $1`, [importId]);
}
