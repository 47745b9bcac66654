import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Imports, the rows they could not store, and import templates. */
export class CreateImports1795570100000 implements MigrationInterface {
  name = 'CreateImports1795570100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "imports" ("_id" character(24) NOT NULL, "version" integer NOT NULL DEFAULT '1', ` +
        `"created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, "created_by_name" text, ` +
        `"deleted" boolean NOT NULL DEFAULT false, "deleted_at" TIMESTAMP WITH TIME ZONE, "deleted_by" text, ` +
        `"search_text" text NOT NULL, "catalog_id" character(24), "category_id" character(24), "from_template_id" character(24), ` +
        `"file_worksheet_id" text, "file_header_row" integer, "mapped_headers" jsonb NOT NULL DEFAULT '{}', "status" text NOT NULL, ` +
        `"file_name" text, "file_key" text, "file_type" text, "file_size" integer, "file_worksheet_name" text, ` +
        `"worksheets" jsonb, "headers" jsonb, "columns_count" integer NOT NULL, "rows_count" integer NOT NULL, ` +
        `"proccess_count" integer NOT NULL, "commit_count" integer NOT NULL, "errors_count" integer NOT NULL, ` +
        `"logs" jsonb, "template" jsonb, "started_at" TIMESTAMP WITH TIME ZONE, "finished_at" TIMESTAMP WITH TIME ZONE, ` +
        `"next_row" integer, "batch_size" integer, CONSTRAINT "PK_805ed127e8c15e7367397d483f4" PRIMARY KEY ("_id"))`,
    );
    await q.query(`CREATE INDEX "IDX_imports_status" ON "imports" ("status", "created_at") WHERE deleted = false`);
    await q.query(`CREATE INDEX "IDX_imports_created_at" ON "imports" ("created_at", "_id")`);
    await q.query(
      `CREATE TABLE "import_errors" ("import_id" character(24) NOT NULL, "row_number" integer NOT NULL, ` +
        `"cells" jsonb NOT NULL, "problems" text NOT NULL, CONSTRAINT "PK_import_errors" PRIMARY KEY ("import_id", "row_number"))`,
    );
    await q.query(
      `CREATE TABLE "import_templates" ("_id" character(24) NOT NULL, "version" integer NOT NULL DEFAULT '1', ` +
        `"created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, "created_by_name" text, ` +
        `"deleted" boolean NOT NULL DEFAULT false, "deleted_at" TIMESTAMP WITH TIME ZONE, "deleted_by" text, ` +
        `"search_text" text NOT NULL, "name" text NOT NULL, "enabled" boolean NOT NULL DEFAULT true, ` +
        `"mapped_headers" jsonb NOT NULL, CONSTRAINT "PK_540d1850ea3e93cf6b52c1a4185" PRIMARY KEY ("_id"))`,
    );
    await q.query(`CREATE INDEX "IDX_import_templates_created_at" ON "import_templates" ("created_at", "_id")`);
    await q.query(
      `CREATE UNIQUE INDEX "UQ_import_templates_name_live" ON "import_templates" ("name") WHERE deleted = false`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "import_templates"`);
    await q.query(`DROP TABLE "import_errors"`);
    await q.query(`DROP TABLE "imports"`);
  }
}
