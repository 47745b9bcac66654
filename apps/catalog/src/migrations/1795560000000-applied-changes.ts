import type { MigrationInterface, QueryRunner } from 'typeorm';

/** applied_changes: the change requests (product approvals) applied to products, each once. */
export class AppliedChanges1795560000000 implements MigrationInterface {
  name = 'AppliedChanges1795560000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "applied_changes" ("change_id" character(24) NOT NULL, "product_id" character(24) NOT NULL, ` +
        `"applied_at" TIMESTAMP WITH TIME ZONE NOT NULL, "product_version" integer NOT NULL, ` +
        `CONSTRAINT "PK_applied_changes" PRIMARY KEY ("change_id"))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "applied_changes"`);
  }
}
