import {
  EventSubscriber,
  type DataSource,
  type EntitySubscriberInterface,
  type MigrationInterface,
  type QueryRunner,
  type TransactionCommitEvent,
} from 'typeorm';
import { ConflictError, UnavailableError } from '@pim/errors';
import { currentCallMark, currentContext } from '@pim/logging';

// Unqualified names: every query runs with search_path set to the app's schema (createDataSource).

/** Statements an app's migration runs (in `up`) to create its ledger of idempotent calls. */
export const IDEMPOTENT_CALLS_UP_SQL: string[] = [
  `CREATE TABLE "idempotent_calls" (` +
    `"token" character(64) NOT NULL, ` +
    `"attempt" uuid NOT NULL, ` +
    `"answer" bytea, ` +
    `"created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), ` +
    `CONSTRAINT "PK_idempotent_calls" PRIMARY KEY ("token"))`,
  `CREATE INDEX "IDX_idempotent_calls_created_at" ON "idempotent_calls" ("created_at")`,
];

/** Statements an app's migration runs (in `down`) to drop it. */
export const IDEMPOTENT_CALLS_DOWN_SQL: string[] = [
  `DROP INDEX "IDX_idempotent_calls_created_at"`,
  `DROP TABLE "idempotent_calls"`,
];

/**
 * The migration that creates the ledger in an app's schema, named `IdempotentCalls<timestamp>` as
 * that app's migrations list it (the same statements in every app; each app keeps its own entry).
 */
export function idempotentCallsMigration(timestamp: number): new () => MigrationInterface {
  const name = `IdempotentCalls${timestamp}`;
  return class implements MigrationInterface {
    name = name;

    async up(q: QueryRunner): Promise<void> {
      for (const sql of IDEMPOTENT_CALLS_UP_SQL) await q.query(sql);
    }

    async down(q: QueryRunner): Promise<void> {
      for (const sql of IDEMPOTENT_CALLS_DOWN_SQL) await q.query(sql);
    }
  };
}

/**
 * How long a call's record is kept: a retry of a call whose answer was lost later than this runs
 * again. Longer than the gateway keeps an Idempotency-Key's answer by default (24 hours).
 */
export const IDEMPOTENT_CALLS_RETENTION_HOURS = 7 * 24;

/** Thrown (rolling the transaction back) when another run of the same call already wrote. */
export class CallAlreadyWritten extends ConflictError {
  constructor() {
    super('Another run of this request already wrote its change', {
      title: 'Request already carried out',
      solution: 'Its first answer is replayed; nothing needs to be done',
    });
  }
}

/** Thrown (rolling the transaction back) when the request's caller stopped waiting before the commit. */
export class CallerGone extends UnavailableError {
  constructor() {
    super('The request ran past its time limit before its change was saved; nothing of it was saved', {
      title: 'Request timed out',
      solution: 'Send the request again (with the same Idempotency-Key for a POST)',
      retryAfter: 1,
    });
  }
}

/**
 * What every transaction of a call does before it commits (registered on every app's DataSource
 * by createDataSource; a no-op outside a call):
 * - past the call's deadline (its caller — the gateway, another app — has stopped waiting, and
 *   has answered or will answer a failure), it is rolled back: a request answered with a 503 or 504
 *   leaves nothing behind, save a commit that began in the last moment;
 * - with an idempotency token, it records the token beside the writes; a transaction of a second
 *   run of the same call finds the first run's record and is rolled back.
 */
@EventSubscriber()
export class CallCommitGuard implements EntitySubscriberInterface {
  async beforeTransactionCommit(event: TransactionCommitEvent): Promise<void> {
    const deadline = currentContext()?.deadline;
    if (deadline !== undefined && Date.now() >= deadline.getTime() && event.queryRunner.isTransactionActive)
      throw new CallerGone();
    const mark = currentCallMark();
    if (!mark || mark.answered || !event.queryRunner.isTransactionActive) return;
    if (!(await this.hasLedger(event))) return;
    const rows = (await event.queryRunner.query(
      `INSERT INTO "idempotent_calls" ("token", "attempt") VALUES ($1, $2)
       ON CONFLICT ("token") DO UPDATE SET "attempt" = EXCLUDED."attempt"
       WHERE "idempotent_calls"."attempt" = EXCLUDED."attempt"
       RETURNING "token"`,
      [mark.token, mark.attempt],
    )) as unknown[];
    if (rows.length === 0) throw new CallAlreadyWritten();
    mark.wrote = true;
  }

  /** Whether this database has the ledger (every app's does once migrated; the gateway's has none). */
  private async hasLedger(event: TransactionCommitEvent): Promise<boolean> {
    const known = ledgers.get(event.connection);
    if (known !== undefined) return known;
    const [row] = (await event.queryRunner.query(
      `SELECT to_regclass('idempotent_calls') IS NOT NULL AS "present"`,
    )) as {
      present: boolean;
    }[];
    ledgers.set(event.connection, row.present);
    return row.present;
  }
}

const ledgers = new WeakMap<DataSource, boolean>();

/** The ledger of idempotent calls over an app's database (@pim/rpc `IdempotentCallLedger`). */
export class IdempotentCallStore {
  constructor(private readonly ds: DataSource) {}

  async find(token: string): Promise<{ answer: Buffer | null } | undefined> {
    const [row] = (await this.ds.query(`SELECT "answer" FROM "idempotent_calls" WHERE "token" = $1`, [token])) as {
      answer: Buffer | null;
    }[];
    return row;
  }

  async keep(token: string, attempt: string, answer: Buffer): Promise<void> {
    await this.ds.query(`UPDATE "idempotent_calls" SET "answer" = $3 WHERE "token" = $1 AND "attempt" = $2`, [
      token,
      attempt,
      answer,
    ]);
  }

  /** Deletes records past the retention, a batch at a time; returns how many went. */
  async purgeExpired(batch = 10_000): Promise<number> {
    let total = 0;
    for (;;) {
      const [, count] = (await this.ds.query(
        `DELETE FROM "idempotent_calls" WHERE "token" IN (
           SELECT "token" FROM "idempotent_calls" WHERE "created_at" < now() - make_interval(hours => $1) LIMIT $2)`,
        [IDEMPOTENT_CALLS_RETENTION_HOURS, batch],
      )) as [unknown, number];
      total += count;
      if (count < batch) return total;
    }
  }
}
