// Shared set-up for the outbox integration tests (not exported from the package).
import type { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import { createDataSource, migrate, type AppDataSourceOptions } from '@pim/db';
import { createLogger, type Logger } from '@pim/logging';
import { createTestDatabase, createTestStream, type TestDatabase, type TestStream } from '@pim/testing';
import { OutboxRelay } from '../outbox.relay';
import { DeadLetter } from '../dead-letter.entity';
import { OutboxEvent } from '../outbox.entity';
import {
  OUTBOX_DEAD_LETTERS_DOWN_SQL,
  OUTBOX_DEAD_LETTERS_UP_SQL,
  OUTBOX_DOWN_SQL,
  OUTBOX_ENVELOPE_AS_JSON_DOWN_SQL,
  OUTBOX_ENVELOPE_AS_JSON_UP_SQL,
  OUTBOX_UP_SQL,
} from '../outbox.sql';

/** The migration an app writes for its outbox, as the tests run it. */
export class CreateOutbox1700000000000 implements MigrationInterface {
  name = 'CreateOutbox1700000000000';
  async up(q: QueryRunner): Promise<void> {
    for (const sql of OUTBOX_UP_SQL) await q.query(sql);
  }
  async down(q: QueryRunner): Promise<void> {
    for (const sql of OUTBOX_DOWN_SQL) await q.query(sql);
  }
}

/** The later migration an app writes to keep envelopes as json. */
export class OutboxEnvelopeJson1700000000001 implements MigrationInterface {
  name = 'OutboxEnvelopeJson1700000000001';
  async up(q: QueryRunner): Promise<void> {
    for (const sql of OUTBOX_ENVELOPE_AS_JSON_UP_SQL) await q.query(sql);
  }
  async down(q: QueryRunner): Promise<void> {
    for (const sql of OUTBOX_ENVELOPE_AS_JSON_DOWN_SQL) await q.query(sql);
  }
}

/** The migration an app writes for its dead letters. */
export class OutboxDeadLetters1700000000002 implements MigrationInterface {
  name = 'OutboxDeadLetters1700000000002';
  async up(q: QueryRunner): Promise<void> {
    for (const sql of OUTBOX_DEAD_LETTERS_UP_SQL) await q.query(sql);
  }
  async down(q: QueryRunner): Promise<void> {
    for (const sql of OUTBOX_DEAD_LETTERS_DOWN_SQL) await q.query(sql);
  }
}

/** DataSource options of a schema that holds only the outbox (and its dead letters). */
export function outboxOptions(url: string, schema: string): AppDataSourceOptions {
  return {
    url,
    schema,
    entities: [OutboxEvent, DeadLetter],
    migrations: [CreateOutbox1700000000000, OutboxEnvelopeJson1700000000001, OutboxDeadLetters1700000000002],
    poolSize: 4,
  };
}

/** Migrates the schema and returns an initialized DataSource on it. */
export async function outboxDataSource(url: string, schema: string): Promise<DataSource> {
  await migrate(outboxOptions(url, schema));
  const ds = createDataSource(outboxOptions(url, schema));
  await ds.initialize();
  return ds;
}

/** A logger that keeps tests quiet. */
export function quietLogger(): Logger {
  return createLogger({ service: 'events-test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });
}

/** Polls until check() returns a truthy value (never asserts how long it took). */
export async function waitFor<T>(
  check: () => Promise<T | undefined | null | false>,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The outbox row of an event, as stored. */
export async function outboxRow(ds: DataSource, id: string): Promise<OutboxEvent | null> {
  return ds.getRepository(OutboxEvent).findOneBy({ id });
}

/** A test file's own database and stream, with outbox schemas and relays on them, all closed by `close()`. */
export interface OutboxHarness {
  db: TestDatabase;
  stream: TestStream;
  /** A migrated schema holding an outbox (and its dead letters). */
  dataSource(schema: string): Promise<DataSource>;
  /** A relay (not started) of a schema's outbox to the harness's stream; `extra` overrides any option. */
  relay(ds: DataSource, extra?: Partial<RelayOptions>): OutboxRelay;
  /** Stops the relays, closes the data sources, removes the stream and the database. */
  close(): Promise<void>;
}

type RelayOptions = ConstructorParameters<typeof OutboxRelay>[0];

/** Makes a harness for one test file; `label` names its database and stream. */
export async function outboxHarness(label: string): Promise<OutboxHarness> {
  const db = await createTestDatabase(label);
  const stream = await createTestStream(label.replace(/[^a-z0-9]/gi, ''));
  const dataSources: DataSource[] = [];
  const relays: OutboxRelay[] = [];
  return {
    db,
    stream,
    async dataSource(schema) {
      const ds = await outboxDataSource(db.url, schema);
      dataSources.push(ds);
      return ds;
    },
    relay(ds, extra = {}) {
      const r = new OutboxRelay({
        dataSource: ds,
        nc: stream.nc,
        stream: stream.name,
        subjectPrefix: stream.subjectPrefix,
        logger: quietLogger(),
        ...extra,
      });
      relays.push(r);
      return r;
    },
    async close() {
      await Promise.all(relays.map((r) => r.stop()));
      await Promise.all(dataSources.map((d) => d.destroy()));
      await stream.destroy();
      await db.drop();
    },
  };
}
