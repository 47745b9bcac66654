import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';
import { createPimClient } from '@pim/api-client';
import { startE2E, type E2E } from './platform';

const root = join(__dirname, '..', '..');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

// Issue 3's acceptance, over HTTP only: keys and scopes, identity downstream, shared rate limits,
// idempotency keys, conditional writes.
describe('gateway security through the whole platform', () => {
  let e2e: E2E;
  let secondGateway: ChildProcess | undefined;
  let secondBase = '';

  beforeAll(async () => {
    e2e = await startE2E('e2esecurity', { RATE_LIMIT_PER_MINUTE: '100' });
    const port = await freePort();
    secondGateway = spawn(process.execPath, ['-r', '@swc-node/register', 'apps/gateway/src/main.ts'], {
      cwd: root,
      env: {
        ...process.env,
        SWC_NODE_PROJECT: join(root, 'tsconfig.json'),
        DATABASE_URL: e2e.platform.databaseUrl,
        NATS_URL: e2e.platform.natsUrl,
        WEBHOOKS_GRPC_URL: `127.0.0.1:${e2e.platform.ports.webhooks}`,
        PORT: String(port),
        RATE_LIMIT_PER_MINUTE: '100',
        LOG_LEVEL: 'warn',
      },
      stdio: 'ignore',
    });
    secondBase = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 100; i++) {
      const ok = await fetch(`${secondBase}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  afterAll(async () => {
    secondGateway?.kill('SIGTERM');
    await e2e?.close();
  });

  it('refuses calls without a key, lets a read key list but not write, and stops a revoked key', async () => {
    const anonymous = await e2e.clientWith().GET('/api/v1/webhooks');
    expect(anonymous.response.status).toBe(401);
    expect(anonymous.error).toMatchObject({ code: 401, kind: 'authentication', name: 'AuthenticationError' });

    const reader = e2e.clientWith(await e2e.newKey(['webhooks:read']));
    expect((await reader.GET('/api/v1/webhooks')).response.status).toBe(200);
    const put = await reader.PUT('/api/v1/webhooks', { body: { collection: 'products' } });
    expect(put.response.status).toBe(403);
    expect(put.error?.name).toBe('AuthorizationError');

    const created = await e2e.client.POST('/api/v1/api-keys', { body: { name: 'temp', scopes: ['webhooks:read'] } });
    expect(created.response.status).toBe(201);
    const { _id: id, key } = created.data!;
    const temp = e2e.clientWith(key);
    expect((await temp.GET('/api/v1/webhooks')).response.status).toBe(200);
    expect((await e2e.client.DELETE('/api/v1/api-keys/{id}', { params: { path: { id } } })).response.status).toBe(204);
    expect((await temp.GET('/api/v1/webhooks')).response.status).toBe(401);
  });

  it("fills created_by_name and deleted_by from the key's user", async () => {
    const writer = e2e.clientWith(
      await e2e.newKey(['webhooks:write'], { user_id: '6740a1b2c3d4e5f601234567', user_name: 'Maria Silva' }),
    );
    const created = await writer.POST('/api/v1/webhooks', { body: { collection: 'brands' } });
    expect(created.data?.created_by_name).toBe('Maria Silva');
    const id = created.data!._id;
    expect((await writer.DELETE('/api/v1/webhooks/{id}', { params: { path: { id } } })).response.status).toBe(204);
    const c = new Client({ connectionString: e2e.platform.databaseUrl });
    await c.connect();
    const rows = await c.query('SELECT deleted_by FROM webhooks.webhooks WHERE _id = $1', [id]);
    await c.end();
    expect(rows.rows[0].deleted_by).toBe('Maria Silva');
  });

  it('lets exactly 100 of 120 burst requests through across two gateway processes', async () => {
    const key = await e2e.newKey(['webhooks:read']);
    const gateways = [e2e.clientWith(key), createPimClient({ baseUrl: secondBase, apiKey: key, retries: false })];
    const statuses = await Promise.all(
      Array.from({ length: 120 }, async (_, i) => {
        const { response } = await gateways[i % 2].GET('/api/v1/collections');
        return { status: response.status, retryAfter: response.headers.get('retry-after') };
      }),
    );
    expect(statuses.filter((s) => s.status === 200)).toHaveLength(100);
    const limited = statuses.filter((s) => s.status === 429);
    expect(limited).toHaveLength(20);
    expect(limited.every((s) => Number(s.retryAfter) > 0)).toBe(true);
  });

  it('makes a POST with an Idempotency-Key happen once', async () => {
    const body = { collection: 'orders', url: 'https://example.com/o' } as const;
    const idempotent = { header: { 'idempotency-key': 'create-orders-hook' } };
    const results = await Promise.all(
      Array.from({ length: 10 }, () => e2e.client.POST('/api/v1/webhooks', { params: idempotent, body })),
    );
    expect(new Set(results.map((r) => r.response.status))).toEqual(new Set([201]));
    expect(new Set(results.map((r) => r.data?._id)).size).toBe(1);
    expect(new Set(results.map((r) => r.data?.secret)).size).toBe(1);
    const again = await e2e.client.POST('/api/v1/webhooks', { params: idempotent, body });
    expect(again.data).toEqual(results[0].data);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    const other = await e2e.client.POST('/api/v1/webhooks', {
      params: idempotent,
      body: { ...body, url: 'https://example.com/other' },
    });
    expect(other.response.status).toBe(409);
    expect(
      (await e2e.client.GET('/api/v1/webhooks', { params: { query: { collection: 'orders' } } })).data?.total,
    ).toBe(1);
  });

  it('applies only one of two writes made with the same If-Match, and answers 304 to If-None-Match', async () => {
    const created = await e2e.client.POST('/api/v1/webhooks', { body: { collection: 'families' } });
    const id = created.data!._id;
    const conditional = { path: { id }, header: { 'if-match': created.response.headers.get('etag')! } };
    const [a, b] = await Promise.all([
      e2e.client.PUT('/api/v1/webhooks/{id}', {
        params: conditional,
        body: { collection: 'families', url: 'https://a.example/h' },
      }),
      e2e.client.PUT('/api/v1/webhooks/{id}', {
        params: conditional,
        body: { collection: 'families', url: 'https://b.example/h' },
      }),
    ]);
    expect([a.response.status, b.response.status].sort()).toEqual([200, 412]);
    const got = await e2e.client.GET('/api/v1/webhooks/{id}', { params: { path: { id } } });
    expect(got.response.headers.get('etag')).toBe('"2"');
    const unchanged = await e2e.client.GET('/api/v1/webhooks/{id}', {
      params: { path: { id }, header: { 'if-none-match': '"2"' } },
    });
    expect(unchanged.response.status).toBe(304);
  });
});
