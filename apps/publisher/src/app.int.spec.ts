import { startApp } from '@pim/app';
import { migrate } from '@pim/db';
import { HealthChecker } from '@pim/rpc';
import { createTestDatabase, createTestStream, type TestDatabase, type TestStream } from '@pim/testing';
import { publisherApp } from './app';
import { readAppConfig } from './config';
import { dataSourceOptions } from './data-source';
import { migrations } from './migrations';

// The app as it starts in production, against the real Postgres and NATS: migrations, bootstrap, health.
describe('publisher app', () => {
  let db: TestDatabase;
  let stream: TestStream;

  beforeAll(async () => {
    db = await createTestDatabase('publisher');
    stream = await createTestStream('publisher');
  });

  afterAll(async () => {
    await stream?.destroy();
    await db?.drop();
  });

  it('migrates its schema, starts through the bootstrap, serves health and shuts down', async () => {
    expect(await migrate(dataSourceOptions(db.url))).toHaveLength(migrations.length);
    const env = {
      DATABASE_URL: db.url,
      NATS_URL: stream.url,
      PIM_EVENTS_STREAM: stream.name,
      PIM_SUBJECT_PREFIX: stream.subjectPrefix,
      PUBLISHER_GRPC_PORT: '0',
      LOG_LEVEL: 'silent',
    };
    let exited: number | undefined;
    const app = await startApp(
      { ...publisherApp, config: () => readAppConfig(env) },
      { signals: false, exit: (code) => (exited = code) },
    );
    const health = new HealthChecker(`127.0.0.1:${app.port}`);
    try {
      expect(await health.check()).toBe('SERVING');
      await app.shutdown.run('test');
      expect(exited).toBe(0);
      expect(app.context.ds.isInitialized).toBe(false);
    } finally {
      health.close();
    }
  });
});
