import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Exports: the declared fields, the common record columns and when the file was removed. */
export class CreateExports1795620000000 implements MigrationInterface {
  name = 'CreateExports1795620000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "exports" ("_id" character(24) NOT NULL, "version" integer NOT NULL DEFAULT '1', ` +
        `"created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, "created_by_name" text, ` +
        `"deleted" boolean NOT NULL DEFAULT false, "deleted_at" TIMESTAMP WITH TIME ZONE, "deleted_by" text, ` +
        `"search_text" text NOT NULL, "file_type" text NOT NULL, "report_type" text NOT NULL DEFAULT 'general', "file_name" text, "csv_bom" boolean NOT NULL DEFAULT true, ` +
        `"filters" jsonb NOT NULL DEFAULT '{}', "headers" jsonb NOT NULL DEFAULT '[]', "status" text NOT NULL, "file_key" text NOT NULL, ` +
        `"products" text array NOT NULL DEFAULT '{}', "downloaded_by" text array NOT NULL DEFAULT '{}', ` +
        `"metadata" jsonb NOT NULL, ` +
        `"rows_count" integer NOT NULL DEFAULT '0', "file_size" double precision, "logs" jsonb NOT NULL DEFAULT '[]', ` +
        `"started_at" TIMESTAMP WITH TIME ZONE, "finished_at" TIMESTAMP WITH TIME ZONE, "expires_at" TIMESTAMP WITH TIME ZONE, ` +
        `"file_removed_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_5ff54dba2c393d21ea56510d055" PRIMARY KEY ("_id"))`,
    );
    await q.query(`CREATE INDEX "IDX_exports_created_at" ON "exports" ("created_at", "_id")`);
    await q.query(`CREATE INDEX "IDX_exports_status" ON "exports" ("status", "created_at") WHERE deleted = false`);
    await q.query(`CREATE INDEX "IDX_exports_expires_at" ON "exports" ("expires_at") WHERE file_removed_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "exports"`);
  }
}
