import { OUTBOX_PENDING_INDEX, OUTBOX_RETRYING_INDEX } from './outbox.entity';

// Unqualified names: migrations run with search_path set to the app's schema (createDataSource).

/** Statements an app's migration runs (in `up`) to create the outbox table; matches OutboxEvent exactly. */
export const OUTBOX_UP_SQL: string[] = [
  `CREATE TABLE "outbox" (` +
    `"id" character(24) NOT NULL, ` +
    `"type" text NOT NULL, ` +
    `"subject" text NOT NULL, ` +
    `"envelope" jsonb NOT NULL, ` +
    `"occurred_at" TIMESTAMP WITH TIME ZONE NOT NULL, ` +
    `"published_at" TIMESTAMP WITH TIME ZONE, ` +
    `"attempts" integer NOT NULL DEFAULT 0, ` +
    `"last_error" text, ` +
    `CONSTRAINT "PK_outbox" PRIMARY KEY ("id"))`,
  `CREATE INDEX "${OUTBOX_PENDING_INDEX}" ON "outbox" ("occurred_at") WHERE "published_at" IS NULL`,
];

/** Statements an app's migration runs (in `down`) to drop the outbox table. */
export const OUTBOX_DOWN_SQL: string[] = [`DROP INDEX "${OUTBOX_PENDING_INDEX}"`, `DROP TABLE "outbox"`];

/**
 * Statements a later migration runs (in `up`) to store envelopes as `json` compressed with lz4
 * where the server has it: the outbox is a queue of payloads that nobody queries by content, so
 * jsonb's decoding on write and re-encoding on read (the relay reads text) is pure cost, and lz4
 * compresses a large envelope several times faster than the default pglz.
 */
export const OUTBOX_ENVELOPE_AS_JSON_UP_SQL: string[] = [
  `ALTER TABLE "outbox" ALTER COLUMN "envelope" TYPE json USING "envelope"::json`,
  `DO $$ BEGIN
     IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
       EXECUTE 'ALTER TABLE "outbox" ALTER COLUMN "envelope" SET COMPRESSION lz4';
     END IF;
   END $$`,
];

/** The way back of OUTBOX_ENVELOPE_AS_JSON_UP_SQL. */
export const OUTBOX_ENVELOPE_AS_JSON_DOWN_SQL: string[] = [
  `ALTER TABLE "outbox" ALTER COLUMN "envelope" SET COMPRESSION default`,
  `ALTER TABLE "outbox" ALTER COLUMN "envelope" TYPE jsonb USING "envelope"::jsonb`,
];

/**
 * Statements a later migration runs (in `up`) for dead letters: the outbox learns the record of
 * each event (`record_id`, so a record's events keep their order) and when a failed event may be
 * tried again (`next_attempt_at`, with a partial index of those), and the `dead_letters` table
 * keeps the events set aside after every try failed (docs/decisions/platform.md).
 */
export const OUTBOX_DEAD_LETTERS_UP_SQL: string[] = [
  `ALTER TABLE "outbox" ADD "record_id" character(24)`,
  `ALTER TABLE "outbox" ADD "next_attempt_at" TIMESTAMP WITH TIME ZONE`,
  `CREATE INDEX "${OUTBOX_RETRYING_INDEX}" ON "outbox" ("record_id") WHERE "published_at" IS NULL AND "next_attempt_at" IS NOT NULL`,
  `CREATE TABLE "dead_letters" (` +
    `"id" character(24) NOT NULL, ` +
    `"source" text NOT NULL, ` +
    `"event_id" character(24) NOT NULL, ` +
    `"event_type" text NOT NULL, ` +
    `"subject" text NOT NULL, ` +
    `"record_id" character(24), ` +
    `"envelope" json NOT NULL, ` +
    `"occurred_at" TIMESTAMP WITH TIME ZONE NOT NULL, ` +
    `"attempts" integer NOT NULL DEFAULT 0, ` +
    `"last_error" text, ` +
    `"created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), ` +
    `"updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), ` +
    `CONSTRAINT "PK_dead_letters" PRIMARY KEY ("id"))`,
  `CREATE UNIQUE INDEX "UQ_dead_letters_source_event" ON "dead_letters" ("source", "event_id")`,
  `CREATE INDEX "IDX_dead_letters_outbox_record" ON "dead_letters" ("record_id") WHERE "source" = 'outbox'`,
];

/** The way back of OUTBOX_DEAD_LETTERS_UP_SQL (dead letters are lost). */
export const OUTBOX_DEAD_LETTERS_DOWN_SQL: string[] = [
  `DROP INDEX "IDX_dead_letters_outbox_record"`,
  `DROP INDEX "UQ_dead_letters_source_event"`,
  `DROP TABLE "dead_letters"`,
  `DROP INDEX "${OUTBOX_RETRYING_INDEX}"`,
  `ALTER TABLE "outbox" DROP COLUMN "next_attempt_at"`,
  `ALTER TABLE "outbox" DROP COLUMN "record_id"`,
];
