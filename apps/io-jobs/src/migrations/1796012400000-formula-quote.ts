import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The neutralizing quote's settings: an export's `csv_neutralize_formulas` and an import's
 * `strip_formula_quote`, true by default. Records that already did their work keep saying what it
 * was: a completed CSV export's file was written without the quote, and an import that has begun
 * reading its file read every cell as written (one resumed after the upgrade goes on the same way).
 */
export class FormulaQuote1796012400000 implements MigrationInterface {
  name = 'FormulaQuote1796012400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "exports" ADD "csv_neutralize_formulas" boolean NOT NULL DEFAULT true`);
    await q.query(`ALTER TABLE "imports" ADD "strip_formula_quote" boolean NOT NULL DEFAULT true`);
    await q.query(
      `UPDATE "exports" SET "csv_neutralize_formulas" = false WHERE "status" = 'completed' AND "file_type" = 'csv'`,
    );
    await q.query(
      `UPDATE "imports" SET "strip_formula_quote" = false WHERE "status" NOT IN ('uploaded', 'mapped', 'queued')`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "imports" DROP COLUMN "strip_formula_quote"`);
    await q.query(`ALTER TABLE "exports" DROP COLUMN "csv_neutralize_formulas"`);
  }
}
