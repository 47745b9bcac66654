import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Time zones: an export's `time_zone` (UTC by default: what every export so far wrote), an import's
 * and an import template's. Imports made before read date-times without an offset as UTC, so they
 * say so; new ones record the zone they read in when they are created.
 */
export class TimeZones1796100000000 implements MigrationInterface {
  name = 'TimeZones1796100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "exports" ADD "time_zone" text NOT NULL DEFAULT 'UTC'`);
    await q.query(`ALTER TABLE "imports" ADD "time_zone" text`);
    await q.query(`ALTER TABLE "import_templates" ADD "time_zone" text`);
    await q.query(`UPDATE "imports" SET "time_zone" = 'UTC'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "import_templates" DROP COLUMN "time_zone"`);
    await q.query(`ALTER TABLE "imports" DROP COLUMN "time_zone"`);
    await q.query(`ALTER TABLE "exports" DROP COLUMN "time_zone"`);
  }
}
