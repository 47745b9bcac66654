import type { MigrationInterface, QueryRunner } from 'typeorm';

const COMMON =
  `"_id" character(24) NOT NULL, "version" integer NOT NULL DEFAULT '1', ` +
  `"created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, "created_by_name" text, ` +
  `"deleted" boolean NOT NULL DEFAULT false, "deleted_at" TIMESTAMP WITH TIME ZONE, "deleted_by" text`;

/** Channels, publications and advertisements (each product's listing on a channel). */
export class CreateChannelsAndPublications1795624157686 implements MigrationInterface {
  name = 'CreateChannelsAndPublications1795624157686';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "channels" (${COMMON}, "search_text" text NOT NULL, "code" text NOT NULL, "name" text NOT NULL, ` +
        `"image" text, "enabled" boolean NOT NULL DEFAULT true, "kind" text NOT NULL DEFAULT 'http', "language" text, ` +
        `"mapping" jsonb NOT NULL DEFAULT '[]', "required_attributes" text array NOT NULL DEFAULT '{}', ` +
        `"auto_republish" boolean NOT NULL DEFAULT false, "endpoint" jsonb NOT NULL, ` +
        `CONSTRAINT "PK_channels" PRIMARY KEY ("_id"))`,
    );
    await q.query(`CREATE UNIQUE INDEX "UQ_channels_code_live" ON "channels" ("code") WHERE deleted = false`);
    await q.query(`CREATE INDEX "IDX_channels_created_at" ON "channels" ("created_at", "_id")`);
    await q.query(
      `CREATE TABLE "publications" (${COMMON}, "product_id" character(24) NOT NULL, "channel_id" character(24) NOT NULL, ` +
        `"advertisement_id" character(24) NOT NULL, "status" text NOT NULL, "origin" text NOT NULL, "publishment_url" text, ` +
        `"tracking" jsonb NOT NULL DEFAULT '[]', "product_snapshot" jsonb NOT NULL, "published_payload" jsonb, ` +
        `"attempts" integer NOT NULL DEFAULT '0', "next_attempt_at" TIMESTAMP WITH TIME ZONE, ` +
        `"channel_code" text NOT NULL, "content_hash" text NOT NULL, "lease_until" TIMESTAMP WITH TIME ZONE, ` +
        `"lease_token" text, "outcome_at" TIMESTAMP WITH TIME ZONE, "product_sync_due" boolean NOT NULL DEFAULT false, ` +
        `"source_event_id" text, CONSTRAINT "PK_publications" PRIMARY KEY ("_id"))`,
    );
    await q.query(`CREATE INDEX "IDX_publications_created_at" ON "publications" ("created_at", "_id")`);
    await q.query(`CREATE INDEX "IDX_publications_advertisement" ON "publications" ("advertisement_id", "_id")`);
    await q.query(`CREATE INDEX "IDX_publications_product" ON "publications" ("product_id")`);
    await q.query(
      `CREATE INDEX "IDX_publications_due" ON "publications" ("next_attempt_at") ` +
        `WHERE status IN ('ready_to_publish', 'publishing') AND deleted = false`,
    );
    await q.query(`CREATE INDEX "IDX_publications_sync_due" ON "publications" ("outcome_at") WHERE product_sync_due`);
    await q.query(
      `CREATE UNIQUE INDEX "UQ_publications_source_event" ON "publications" ("source_event_id", "channel_id") ` +
        `WHERE source_event_id IS NOT NULL`,
    );
    await q.query(
      `CREATE TABLE "advertisements" ("_id" character(24) NOT NULL, "product_id" character(24) NOT NULL, ` +
        `"channel_id" character(24) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, ` +
        `"latest_publication_id" character(24) NOT NULL, "published_publication_id" character(24), ` +
        `"published_at" TIMESTAMP WITH TIME ZONE, "published_hash" text, CONSTRAINT "PK_advertisements" PRIMARY KEY ("_id"))`,
    );
    await q.query(
      `CREATE UNIQUE INDEX "UQ_advertisements_product_channel" ON "advertisements" ("product_id", "channel_id")`,
    );
    await q.query(`CREATE INDEX "IDX_advertisements_channel" ON "advertisements" ("channel_id")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "advertisements"`);
    await q.query(`DROP TABLE "publications"`);
    await q.query(`DROP TABLE "channels"`);
  }
}
