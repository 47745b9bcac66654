import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Secret rotation columns, the event inbox, deliveries (the queue) and their attempts. */
export class Deliveries1764547200000 implements MigrationInterface {
  name = 'Deliveries1764547200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "webhooks" ADD "previous_secret" text`);
    await q.query(`ALTER TABLE "webhooks" ADD "previous_secret_expires_at" TIMESTAMP WITH TIME ZONE`);
    await q.query(
      `CREATE TABLE "inbox" ("event_id" character(24) NOT NULL, "type" text NOT NULL, "collection" text NOT NULL, ` +
        `"source" text NOT NULL, "occurred_at" TIMESTAMP WITH TIME ZONE NOT NULL, "request_id" text, "envelope" jsonb NOT NULL, ` +
        `"received_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_inbox" PRIMARY KEY ("event_id"))`,
    );
    await q.query(`CREATE INDEX "IDX_inbox_received_at" ON "inbox" ("received_at")`);
    await q.query(
      `CREATE TABLE "deliveries" ("_id" character(24) NOT NULL, "webhook_id" character(24) NOT NULL, "event_id" character(24) NOT NULL, ` +
        `"event_type" text NOT NULL, "status" text NOT NULL, "attempts" integer NOT NULL DEFAULT '0', "retry_base" integer NOT NULL DEFAULT '0', ` +
        `"next_attempt_at" TIMESTAMP WITH TIME ZONE, "lease_token" uuid, "lease_expires_at" TIMESTAMP WITH TIME ZONE, ` +
        `"last_attempt_at" TIMESTAMP WITH TIME ZONE, "last_status_code" integer, "last_response_body" text, "last_duration_ms" integer, ` +
        `"last_error" text, "request_id" text, "event_occurred_at" TIMESTAMP WITH TIME ZONE NOT NULL, ` +
        `"created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, "completed_at" TIMESTAMP WITH TIME ZONE, ` +
        `CONSTRAINT "PK_deliveries" PRIMARY KEY ("_id"))`,
    );
    await q.query(`CREATE UNIQUE INDEX "UQ_deliveries_event_webhook" ON "deliveries" ("event_id", "webhook_id")`);
    await q.query(
      `CREATE INDEX "IDX_deliveries_due" ON "deliveries" ("webhook_id", "next_attempt_at", "_id") WHERE status = 'pending'`,
    );
    await q.query(`CREATE INDEX "IDX_deliveries_leased" ON "deliveries" ("webhook_id") WHERE lease_token IS NOT NULL`);
    await q.query(`CREATE INDEX "IDX_deliveries_list" ON "deliveries" ("webhook_id", "created_at", "_id")`);
    await q.query(
      `ALTER TABLE "deliveries" ADD CONSTRAINT "FK_deliveries_webhook" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("_id") ON DELETE NO ACTION ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "deliveries" ADD CONSTRAINT "FK_deliveries_event" FOREIGN KEY ("event_id") REFERENCES "inbox"("event_id") ON DELETE NO ACTION ON UPDATE NO ACTION`,
    );
    await q.query(
      `CREATE TABLE "delivery_attempts" ("_id" character(24) NOT NULL, "delivery_id" character(24) NOT NULL, "number" integer NOT NULL, ` +
        `"started_at" TIMESTAMP WITH TIME ZONE NOT NULL, "duration_ms" integer, "outcome" text NOT NULL, "status_code" integer, ` +
        `"response_body" text, "error" text, "url" text, CONSTRAINT "PK_delivery_attempts" PRIMARY KEY ("_id"))`,
    );
    await q.query(`CREATE INDEX "IDX_delivery_attempts_delivery" ON "delivery_attempts" ("delivery_id", "number")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "delivery_attempts"`);
    await q.query(`DROP TABLE "deliveries"`);
    await q.query(`DROP TABLE "inbox"`);
    await q.query(`ALTER TABLE "webhooks" DROP COLUMN "previous_secret_expires_at"`);
    await q.query(`ALTER TABLE "webhooks" DROP COLUMN "previous_secret"`);
  }
}
