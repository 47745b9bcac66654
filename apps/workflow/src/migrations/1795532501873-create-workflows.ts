import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The workflows table: the common record columns, its search text, and the declared fields; the code is unique among live workflows, and at most one live workflow is the default. */
export class CreateWorkflows1795532501873 implements MigrationInterface {
  name = 'CreateWorkflows1795532501873';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "workflows" ("_id" character(24) NOT NULL, "version" integer NOT NULL DEFAULT '1', ` +
        `"created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, "created_by_name" text, ` +
        `"deleted" boolean NOT NULL DEFAULT false, "deleted_at" TIMESTAMP WITH TIME ZONE, "deleted_by" text, ` +
        `"search_text" text NOT NULL, ` +
        `"filters" jsonb NOT NULL DEFAULT '{}', "steps" jsonb NOT NULL DEFAULT '[]', "code" text NOT NULL, "name" text NOT NULL, "description" text, ` +
        `"tags" text array NOT NULL DEFAULT '{}', "enabled" boolean NOT NULL, "default" boolean NOT NULL DEFAULT true, CONSTRAINT "PK_7c1f932f873405472d5f06bc0ca" PRIMARY KEY ("_id"))`,
    );
    await q.query(`CREATE UNIQUE INDEX "UQ_workflows_code_live" ON "workflows" ("code") WHERE deleted = false`);
    await q.query(`CREATE INDEX "IDX_workflows_created_at" ON "workflows" ("created_at", "_id")`);
    await q.query(
      `CREATE UNIQUE INDEX "UQ_workflows_default_live" ON "workflows" ("default") WHERE "default" = true AND deleted = false`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "workflows"`);
  }
}
