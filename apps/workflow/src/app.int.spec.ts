import { startApp } from '@pim/app';
import { migrate } from '@pim/db';
import { workflow as pb } from '@pim/contracts';
import { ValidationError } from '@pim/errors';
import { HealthChecker, createRpcClient } from '@pim/rpc';
import { createTestDatabase, createTestStream, type TestDatabase, type TestStream } from '@pim/testing';
import { workflowApp } from './app';
import { readConfig } from './config';
import { dataSourceOptions } from './data-source';
import { migrations } from './migrations';

// The app as it starts in production, against the real Postgres and NATS: migrations, bootstrap, health.
describe('workflow app', () => {
  let db: TestDatabase;
  let stream: TestStream;

  beforeAll(async () => {
    db = await createTestDatabase('workflow');
    stream = await createTestStream('workflow');
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
      WORKFLOW_GRPC_PORT: '0',
      LOG_LEVEL: 'silent',
    };
    let exited: number | undefined;
    const app = await startApp(
      { ...workflowApp, config: () => readConfig(env) },
      { signals: false, exit: (code) => (exited = code) },
    );
    const health = new HealthChecker(`127.0.0.1:${app.port}`);
    const groups = createRpcClient(pb.UsersGroupsServiceClient, {
      service: 'workflow',
      address: `127.0.0.1:${app.port}`,
      deadlineMs: 5_000,
    });
    try {
      expect(await health.check()).toBe('SERVING');
      // The access a key's user has, over gRPC, as the gateway will ask it, by the user id the
      // customer's identity system gives (any printable text); an empty or unprintable one is a 400.
      const user = 'auth0|5f1c2b3a4d5e6f7a8b9c0d1e';
      const input = pb.UsersGroupInput.fromPartial({
        source_id: 'sso',
        name: 'All',
        has_full_product_access: true,
        users: [{ id: user, roles: [] }],
      });
      const created = (await groups.createUsersGroup({ input })).data!;
      expect(await groups.getUserAccess({ user_id: user })).toEqual({
        group_ids: [created.id],
        full_product_access: true,
      });
      // Trimmed as API keys store it, so the same user.
      expect((await groups.getUserAccess({ user_id: ` ${user} ` })).group_ids).toEqual([created.id]);
      expect(await groups.getUserAccess({ user_id: 'ana@example.com' })).toEqual({
        group_ids: [],
        full_product_access: false,
      });
      await expect(groups.getUserAccess({ user_id: '' })).rejects.toBeInstanceOf(ValidationError);
      await expect(groups.getUserAccess({ user_id: 'auth0|\n1' })).rejects.toBeInstanceOf(ValidationError);
      groups.close();
      await app.shutdown.run('test');
      expect(exited).toBe(0);
      expect(app.context.ds.isInitialized).toBe(false);
    } finally {
      health.close();
    }
  });
});
