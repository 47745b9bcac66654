import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `_search` finds imports and exports by their file name: the search text was taken from what the
 * caller sent, before the upload named the file (imports) or the name was settled (exports: an
 * extension or a default name added), so it missed the name the record shows. New writes take it
 * from the stored record; this writes it for the records already there.
 */
export class SearchFileNames1796100000001 implements MigrationInterface {
  name = 'SearchFileNames1796100000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE "imports" SET "search_text" = COALESCE("file_name", '')`);
    await q.query(`UPDATE "exports" SET "search_text" = COALESCE("file_name", '')`);
  }

  async down(): Promise<void> {
    // The search text as it was (from the caller's input) is not kept: the one written stays, and is right.
  }
}
