import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Who an export or an import runs as (its creator, the user who started it); NULL: unrestricted. */
export class AddRunAs1795700000000 implements MigrationInterface {
  name = 'AddRunAs1795700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "exports" ADD "run_as" jsonb`);
    await q.query(`ALTER TABLE "imports" ADD "run_as" jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "imports" DROP COLUMN "run_as"`);
    await q.query(`ALTER TABLE "exports" DROP COLUMN "run_as"`);
  }
}
