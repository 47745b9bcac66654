import { OUTBOX_PENDING_INDEX } from './outbox.entity';

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
