import { DeadLetter, OutboxEvent, OUTBOX_DEAD_LETTERS_UP_SQL, OUTBOX_UP_SQL } from '@pim/events';
import { migrate } from '@pim/db';
import { PROTO_FILES } from '@pim/contracts';
import { HealthChecker } from '@pim/rpc';
import { createTestDatabase, createTestStream, type TestDatabase, type TestStream } from '@pim/testing';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { DEAD_LETTERS_SERVICE } from './dead-letters.grpc';
import { startApp, type BackgroundLoop, type OwnerConfig } from './run-app';

class CreateOutbox1700000000000 implements MigrationInterface {
  name = 'CreateOutbox1700000000000';
  async up(q: QueryRunner): Promise<void> {
    for (const sql of [...OUTBOX_UP_SQL, ...OUTBOX_DEAD_LETTERS_UP_SQL]) await q.query(sql);
  }
  async down(): Promise<void> {}
}

/** A loop that notes when it starts and stops. */
class NotingLoop implements BackgroundLoop {
  constructor(
    private readonly name: string,
    private readonly log: string[],
  ) {}
  start(): void {
    this.log.push(`start ${this.name}`);
  }
  async stop(): Promise<void> {
    this.log.push(`stop ${this.name}`);
  }
}

// A tiny owner app through the one bootstrap, against the real Postgres and NATS.
describe('runApp (startApp)', () => {
  let db: TestDatabase;
  let stream: TestStream;
  const schema = 'demo';
  const dataSource = (url: string) => ({
    url,
    schema,
    entities: [OutboxEvent, DeadLetter],
    migrations: [CreateOutbox1700000000000],
  });

  beforeAll(async () => {
    db = await createTestDatabase('app');
    stream = await createTestStream('app');
    await migrate(dataSource(db.url));
  });

  afterAll(async () => {
    await stream?.destroy();
    await db?.drop();
  });

  it('serves health once started, runs its loops, and shuts down in order (NOT_SERVING first, database last)', async () => {
    const log: string[] = [];
    const config: OwnerConfig & { PORT: number } = {
      LOG_LEVEL: 'silent',
      DATABASE_URL: db.url,
      NATS_URL: stream.url,
      PIM_EVENTS_STREAM: stream.name,
      PIM_SUBJECT_PREFIX: stream.subjectPrefix,
      OUTBOX_RELAY: true,
      OUTBOX_MAX_BACKOFF_MS: 1_000,
      OUTBOX_MAX_ATTEMPTS: 10,
      CONSUMER_MAX_DELIVER: 20,
      SHUTDOWN_GRACE_MS: 1_000,
      PORT: 0,
    };
    let exitCode: number | undefined;
    const app = await startApp(
      {
        name: 'demo',
        dir: __dirname,
        config: () => config,
        dataSource,
        grpc: { port: (c) => c.PORT, protoFiles: [PROTO_FILES.webhooks] },
        wire: ({ ds, nats }) => {
          log.push(`wired (database ${ds.isInitialized ? 'up' : 'down'}, NATS ${nats ? 'up' : 'down'})`);
          return { services: [], loops: [new NotingLoop('a', log), undefined, new NotingLoop('b', log)] };
        },
      },
      { signals: false, exit: (code) => (exitCode = code) },
    );
    const health = new HealthChecker(`127.0.0.1:${app.port}`);
    try {
      expect(await health.check()).toBe('SERVING');
      // Every app with an outbox serves its dead letters.
      expect(await health.check(DEAD_LETTERS_SERVICE)).toBe('SERVING');
      expect(log).toEqual(['wired (database up, NATS up)', 'start a', 'start b']);

      await app.shutdown.run('test');
      expect(log.slice(3).sort()).toEqual(['stop a', 'stop b']);
      expect(app.context.ds.isInitialized).toBe(false);
      expect(app.context.nats?.isClosed()).toBe(true);
      expect(exitCode).toBe(0);
      expect(await health.check('', 300)).toBe('UNREACHABLE');
    } finally {
      health.close();
    }
  });

  it('names the bad variable when the config does not hold', async () => {
    await expect(
      startApp(
        {
          name: 'demo',
          dir: __dirname,
          config: () => {
            throw new Error('Invalid configuration: DEMO_PORT: expected number');
          },
          dataSource,
          grpc: { port: () => 0, protoFiles: [] },
          wire: () => ({ services: [] }),
        },
        { signals: false },
      ),
    ).rejects.toThrow('DEMO_PORT');
  });
});
