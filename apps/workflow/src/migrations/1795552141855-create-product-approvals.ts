import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The product_approvals table: the common record columns and the declared fields; indexes by product and for the queue of changes to apply. */
export class CreateProductApprovals1795552141855 implements MigrationInterface {
  name = 'CreateProductApprovals1795552141855';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "product_approvals" ("_id" character(24) NOT NULL, "version" integer NOT NULL DEFAULT '1', ` +
        `"created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, "created_by_name" text, ` +
        `"deleted" boolean NOT NULL DEFAULT false, "deleted_at" TIMESTAMP WITH TIME ZONE, "deleted_by" text, ` +
        `"product_id" character(24) NOT NULL, "product_approvals" text array NOT NULL DEFAULT '{}', ` +
        `"kit_products" jsonb NOT NULL DEFAULT '[]', "disassociate_kit_products" jsonb NOT NULL DEFAULT '[]', ` +
        `"kit_services" jsonb NOT NULL DEFAULT '[]', "disassociate_kit_services" jsonb NOT NULL DEFAULT '[]', ` +
        `"eligible_service_products" jsonb NOT NULL DEFAULT '[]', "disassociate_eligible_service_products" jsonb NOT NULL DEFAULT '[]', ` +
        `"ineligible_service_products" jsonb NOT NULL DEFAULT '[]', "disassociate_ineligible_service_products" jsonb NOT NULL DEFAULT '[]', ` +
        `"eligible_service_categories" jsonb NOT NULL DEFAULT '[]', "disassociate_eligible_service_categories" jsonb NOT NULL DEFAULT '[]', ` +
        `"ineligible_service_categories" jsonb NOT NULL DEFAULT '[]', "disassociate_ineligible_service_categories" jsonb NOT NULL DEFAULT '[]', ` +
        `"attribute_groups" text array NOT NULL DEFAULT '{}', "workflow_approval_id" character(24) NOT NULL, "status" text NOT NULL, ` +
        `"current_step" jsonb, "steps" jsonb NOT NULL, "decisions" jsonb NOT NULL, "decided_at" TIMESTAMP WITH TIME ZONE, ` +
        `"application" jsonb, "apply_after" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_f72582378705e40aa060810b93f" PRIMARY KEY ("_id"))`,
    );
    await q.query(`CREATE INDEX "IDX_product_approvals_created_at" ON "product_approvals" ("created_at", "_id")`);
    await q.query(`CREATE INDEX "IDX_product_approvals_product_id" ON "product_approvals" ("product_id")`);
    await q.query(
      `CREATE INDEX "IDX_product_approvals_to_apply" ON "product_approvals" ("apply_after") WHERE "application" ->> 'status' = 'pending' AND deleted = false`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "product_approvals"`);
  }
}
