import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The orders table: the common record columns, its search text, the declared fields and the filtered nested values; indexes for the lists. */
export class CreateOrdersTable1795554119239 implements MigrationInterface {
  name = 'CreateOrdersTable1795554119239';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "orders" ("_id" character(24) NOT NULL, "version" integer NOT NULL DEFAULT '1', ` +
        `"created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, "created_by_name" text, ` +
        `"deleted" boolean NOT NULL DEFAULT false, "deleted_at" TIMESTAMP WITH TIME ZONE, "deleted_by" text, ` +
        `"search_text" text NOT NULL, "code" text NOT NULL, "external_code" text NOT NULL, "invoice_number" text, ` +
        `"placed_at" TIMESTAMP WITH TIME ZONE, "store_source" jsonb, "store_target" jsonb, "channel" jsonb NOT NULL, ` +
        `"final_status_type" text, "final_status_at" TIMESTAMP WITH TIME ZONE, "elapsed_time" integer, "status_code" text, ` +
        `"status_updated_at" TIMESTAMP WITH TIME ZONE, "step_code" text, "status" jsonb, "customer" jsonb NOT NULL, ` +
        `"identifiers" jsonb NOT NULL DEFAULT '{}', "metadata" jsonb NOT NULL DEFAULT '{}', "totals" jsonb, "conditions" jsonb NOT NULL DEFAULT '[]', ` +
        `"workflow_id" character(24), "workflow_code" text, "workflow" jsonb, "items_count" integer NOT NULL, ` +
        `"sort_date" TIMESTAMP WITH TIME ZONE, "sla" double precision, "sla_overdue_date" TIMESTAMP WITH TIME ZONE, ` +
        `"status_overdue_date" TIMESTAMP WITH TIME ZONE, "logistic_id" character(24), "last_interaction" jsonb, ` +
        `"order_items" jsonb NOT NULL DEFAULT '[]', "order_trackings" jsonb NOT NULL DEFAULT '[]', ` +
        `"order_payments" jsonb NOT NULL DEFAULT '[]', "order_comments" jsonb NOT NULL DEFAULT '[]', "order_logistics" jsonb, ` +
        `"invoices" jsonb NOT NULL DEFAULT '[]', "customer_email" text, "customer_document" text, "channel_code" text NOT NULL, ` +
        `CONSTRAINT "PK_252c2a9858ce5be707f5c84e78a" PRIMARY KEY ("_id"))`,
    );
    await q.query(`CREATE UNIQUE INDEX "UQ_orders_code_live" ON "orders" ("code") WHERE deleted = false`);
    await q.query(`CREATE INDEX "IDX_orders_created_at" ON "orders" ("created_at", "_id")`);
    await q.query(`CREATE INDEX "IDX_orders_customer_email" ON "orders" ("customer_email") WHERE deleted = false`);
    await q.query(
      `CREATE INDEX "IDX_orders_customer_document" ON "orders" ("customer_document") WHERE deleted = false`,
    );
    await q.query(
      `CREATE INDEX "IDX_orders_channel_placed_at" ON "orders" ("channel_code", "placed_at", "_id") WHERE deleted = false`,
    );
    await q.query(`CREATE INDEX "IDX_orders_status_code" ON "orders" ("status_code") WHERE deleted = false`);
    await q.query(
      `CREATE INDEX "IDX_orders_workflow_id" ON "orders" ("workflow_id") WHERE deleted = false AND final_status_type IS NULL`,
    );
    // Open orders by the earliest of their due dates (LEAST skips a missing one): overdue=true reads a prefix of it.
    await q.query(
      `CREATE INDEX "IDX_orders_overdue" ON "orders" ((LEAST("sla_overdue_date", "status_overdue_date")), "_id") ` +
        `WHERE deleted = false AND final_status_type IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "orders"`);
  }
}
