import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Who a publication batch runs as (its creator); NULL: unrestricted. */
export class AddBatchRunAs1795701000000 implements MigrationInterface {
  name = 'AddBatchRunAs1795701000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "publication_batches" ADD "run_as" jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "publication_batches" DROP COLUMN "run_as"`);
  }
}
