import type { MigrationInterface, QueryRunner } from 'typeorm';
import { OUTBOX_DOWN_SQL, OUTBOX_UP_SQL } from '@pim/events';

/** Webhooks table (live collections unique), the outbox, and unaccent for `_search`. */
export class CreateWebhooks1763827200000 implements MigrationInterface {
  name = 'CreateWebhooks1763827200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS unaccent WITH SCHEMA public`);
    await q.query(
      `CREATE TABLE "webhooks" ("_id" character(24) NOT NULL, "collection" text NOT NULL, "url" text, ` +
        `"headers" jsonb NOT NULL DEFAULT '[]', "body" jsonb NOT NULL DEFAULT '[]', "enabled" boolean NOT NULL DEFAULT true, ` +
        `"secret" text NOT NULL, "version" integer NOT NULL DEFAULT '1', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, ` +
        `"updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, "created_by_name" text, "deleted" boolean NOT NULL DEFAULT false, ` +
        `"deleted_at" TIMESTAMP WITH TIME ZONE, "deleted_by" text, CONSTRAINT "PK_42e22721a046e205eb14db60606" PRIMARY KEY ("_id"))`,
    );
    await q.query(`CREATE INDEX "IDX_webhooks_created_at" ON "webhooks" ("created_at", "_id")`);
    await q.query(
      `CREATE UNIQUE INDEX "UQ_webhooks_collection_live" ON "webhooks" ("collection") WHERE deleted = false`,
    );
    for (const sql of OUTBOX_UP_SQL) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sql of OUTBOX_DOWN_SQL) await q.query(sql);
    await q.query(`DROP INDEX "UQ_webhooks_collection_live"`);
    await q.query(`DROP INDEX "IDX_webhooks_created_at"`);
    await q.query(`DROP TABLE "webhooks"`);
  }
}
