import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Publication batches (POST /publications/bulk), and the batch each publication came from. */
export class CreatePublicationBatches1795625601358 implements MigrationInterface {
  name = 'CreatePublicationBatches1795625601358';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "publication_batches" ("_id" character(24) NOT NULL, "version" integer NOT NULL DEFAULT '1', ` +
        `"created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, "created_by_name" text, ` +
        `"deleted" boolean NOT NULL DEFAULT false, "deleted_at" TIMESTAMP WITH TIME ZONE, "deleted_by" text, ` +
        `"channel_id" character(24) NOT NULL, "filters" jsonb NOT NULL DEFAULT '{}', "status" text NOT NULL, ` +
        `"products_count" integer NOT NULL DEFAULT '0', "publications_count" integer NOT NULL DEFAULT '0', ` +
        `"refused_count" integer NOT NULL DEFAULT '0', "refusals" jsonb NOT NULL DEFAULT '[]', "error" text, ` +
        `"started_at" TIMESTAMP WITH TIME ZONE, "finished_at" TIMESTAMP WITH TIME ZONE, "cursor" character(24), ` +
        `"lease_until" TIMESTAMP WITH TIME ZONE, "lease_token" text, CONSTRAINT "PK_publication_batches" PRIMARY KEY ("_id"))`,
    );
    await q.query(`CREATE INDEX "IDX_publication_batches_created_at" ON "publication_batches" ("created_at", "_id")`);
    await q.query(
      `CREATE INDEX "IDX_publication_batches_waiting" ON "publication_batches" ("created_at") ` +
        `WHERE status IN ('pending', 'processing') AND deleted = false`,
    );
    await q.query(`ALTER TABLE "publications" ADD "batch_id" character(24)`);
    await q.query(`CREATE INDEX "IDX_publications_batch" ON "publications" ("batch_id") WHERE batch_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "IDX_publications_batch"`);
    await q.query(`ALTER TABLE "publications" DROP COLUMN "batch_id"`);
    await q.query(`DROP TABLE "publication_batches"`);
  }
}
