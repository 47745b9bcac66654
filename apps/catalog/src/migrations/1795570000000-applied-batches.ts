import type { MigrationInterface, QueryRunner } from 'typeorm';

/** applied_batches: bulk upserts sent under a batch id (imports), each applied once. */
export class AppliedBatches1795570000000 implements MigrationInterface {
  name = 'AppliedBatches1795570000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "applied_batches" ("batch_id" text NOT NULL, "applied_at" TIMESTAMP WITH TIME ZONE NOT NULL, ` +
        `"results" jsonb NOT NULL, CONSTRAINT "PK_applied_batches" PRIMARY KEY ("batch_id"))`,
    );
    await q.query(`CREATE INDEX "IDX_applied_batches_applied_at" ON "applied_batches" ("applied_at") `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "IDX_applied_batches_applied_at"`);
    await q.query(`DROP TABLE "applied_batches"`);
  }
}
