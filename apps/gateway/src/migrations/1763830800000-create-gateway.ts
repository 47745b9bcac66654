import type { MigrationInterface, QueryRunner } from 'typeorm';

/** API keys, idempotency records and the rate-limit counters (rate-limiter-flexible's table layout). */
export class CreateGateway1763830800000 implements MigrationInterface {
  name = 'CreateGateway1763830800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS unaccent WITH SCHEMA public`);
    await q.query(
      `CREATE TABLE "api_keys" ("_id" character(24) NOT NULL, "name" text NOT NULL, "prefix" text NOT NULL, "secret_hash" text NOT NULL, ` +
        `"scopes" text array NOT NULL DEFAULT '{}', "user_id" text, "user_name" text, "expires_at" TIMESTAMP WITH TIME ZONE, ` +
        `"last_used_at" TIMESTAMP WITH TIME ZONE, "revoked" boolean NOT NULL DEFAULT false, "revoked_at" TIMESTAMP WITH TIME ZONE, ` +
        `"version" integer NOT NULL DEFAULT '1', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, ` +
        `"created_by_name" text, CONSTRAINT "PK_63c86ed576f088635b4354b5f74" PRIMARY KEY ("_id"))`,
    );
    await q.query(`CREATE INDEX "IDX_api_keys_created_at" ON "api_keys" ("created_at", "_id")`);
    await q.query(`CREATE UNIQUE INDEX "UQ_api_keys_prefix" ON "api_keys" ("prefix")`);
    await q.query(
      `CREATE TABLE "idempotency_records" ("owner" text NOT NULL, "key" text NOT NULL, "request_hash" text NOT NULL, "response_status" integer, ` +
        `"response_headers" jsonb, "response_body" jsonb, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, ` +
        `CONSTRAINT "PK_a48571ca8a630451767640969bd" PRIMARY KEY ("owner", "key"))`,
    );
    await q.query(`CREATE INDEX "IDX_idempotency_records_created_at" ON "idempotency_records" ("created_at")`);
    // Shared counters of every gateway replica; rows expire (epoch ms in `expire`) and are swept.
    await q.query(
      `CREATE TABLE "rate_limits" ("key" varchar(255) PRIMARY KEY, "points" integer NOT NULL DEFAULT 0, "expire" bigint)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "rate_limits"`);
    await q.query(`DROP TABLE "idempotency_records"`);
    await q.query(`DROP TABLE "api_keys"`);
  }
}
