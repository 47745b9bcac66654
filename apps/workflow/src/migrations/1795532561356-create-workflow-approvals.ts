import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The workflow_approvals table: the common record columns, its search text, and the declared fields; the code is unique among live workflow approvals, and at most one live workflow approval is the default. */
export class CreateWorkflowApprovals1795532561356 implements MigrationInterface {
  name = 'CreateWorkflowApprovals1795532561356';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "workflow_approvals" ("_id" character(24) NOT NULL, "version" integer NOT NULL DEFAULT '1', ` +
        `"created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, "created_by_name" text, ` +
        `"deleted" boolean NOT NULL DEFAULT false, "deleted_at" TIMESTAMP WITH TIME ZONE, "deleted_by" text, ` +
        `"search_text" text NOT NULL, ` +
        `"filters" jsonb NOT NULL DEFAULT '{}', "exclude_products" text array NOT NULL DEFAULT '{}', "included_products" text array NOT NULL DEFAULT '{}', ` +
        `"steps" jsonb NOT NULL DEFAULT '[]', "code" text NOT NULL, "name" text NOT NULL, "description" text, ` +
        `"tags" text array NOT NULL DEFAULT '{}', "enabled" boolean NOT NULL, "default" boolean NOT NULL DEFAULT true, CONSTRAINT "PK_04547c667e20d044cbde0ed90c1" PRIMARY KEY ("_id"))`,
    );
    await q.query(
      `CREATE UNIQUE INDEX "UQ_workflow_approvals_code_live" ON "workflow_approvals" ("code") WHERE deleted = false`,
    );
    await q.query(`CREATE INDEX "IDX_workflow_approvals_created_at" ON "workflow_approvals" ("created_at", "_id")`);
    await q.query(
      `CREATE UNIQUE INDEX "UQ_workflow_approvals_default_live" ON "workflow_approvals" ("default") WHERE "default" = true AND deleted = false`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "workflow_approvals"`);
  }
}
