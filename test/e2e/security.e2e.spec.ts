import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';
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
      const ok = await fetch(`${secondBase}/readyz`).then((r) => r.ok, () => false);
      if (ok) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  afterAll(async () => {
    secondGateway?.kill('SIGTERM');
    await e2e?.close();
  });

  it('refuses calls without a key, lets a read key list but not write, and stops a revoked key', async () => {
    const anonymous = await e2e.api('GET', '/api/v1/webhooks', undefined, { authorization: '' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.json).toMatchObject({ code: 401, kind: 'authentication', name: 'AuthenticationError' });

    const reader = await e2e.newKey(['webhooks:read']);
    expect((await e2e.api('GET', '/api/v1/webhooks', undefined, { authorization: `Bearer ${reader}` })).status).toBe(200);
    const put = await e2e.api('PUT', '/api/v1/webhooks', { collection: 'products' }, { authorization: `Bearer ${reader}` });
    expect(put.status).toBe(403);

    const created = await e2e.api('POST', '/api/v1/api-keys', { name: 'temp', scopes: ['webhooks:read'] });
    const token = created.json.key as string;
    expect((await e2e.api('GET', '/api/v1/webhooks', undefined, { authorization: `Bearer ${token}` })).status).toBe(200);
    expect((await e2e.api('DELETE', `/api/v1/api-keys/${created.json._id}`)).status).toBe(204);
    expect((await e2e.api('GET', '/api/v1/webhooks', undefined, { authorization: `Bearer ${token}` })).status).toBe(401);
  });

  it("fills created_by_name and deleted_by from the key's user", async () => {
    const writer = await e2e.newKey(['webhooks:write'], { user_id: '6740a1b2c3d4e5f601234567', user_name: 'Maria Silva' });
    const auth = { authorization: `Bearer ${writer}` };
    const created = await e2e.api('POST', '/api/v1/webhooks', { collection: 'brands' }, auth);
    expect(created.json.created_by_name).toBe('Maria Silva');
    expect((await e2e.api('DELETE', `/api/v1/webhooks/${created.json._id}`, undefined, auth)).status).toBe(204);
    const c = new Client({ connectionString: e2e.platform.databaseUrl });
    await c.connect();
    const rows = await c.query('SELECT deleted_by FROM webhooks.webhooks WHERE _id = $1', [created.json._id]);
    await c.end();
    expect(rows.rows[0].deleted_by).toBe('Maria Silva');
  });

  it('lets exactly 100 of 120 burst requests through across two gateway processes', async () => {
    const key = await e2e.newKey(['webhooks:read']);
    const gatewayBase = e2e.platform.gatewayUrl.replace(/\/api\/v1$/, '');
    const statuses = await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        fetch(`${i % 2 ? secondBase : gatewayBase}/api/v1/collections`, { headers: { authorization: `Bearer ${key}` } }).then(async (r) => ({
          status: r.status,
          retryAfter: r.headers.get('retry-after'),
        })),
      ),
    );
    expect(statuses.filter((s) => s.status === 200)).toHaveLength(100);
    const limited = statuses.filter((s) => s.status === 429);
    expect(limited).toHaveLength(20);
    expect(limited.every((s) => Number(s.retryAfter) > 0)).toBe(true);
  });

  it('makes a POST with an Idempotency-Key happen once', async () => {
    const body = { collection: 'orders', url: 'https://example.com/o' };
    const results = await Promise.all(Array.from({ length: 10 }, () => e2e.api('POST', '/api/v1/webhooks', body, { 'idempotency-key': 'create-orders-hook' })));
    expect(new Set(results.map((r) => r.status))).toEqual(new Set([201]));
    expect(new Set(results.map((r) => r.json._id)).size).toBe(1);
    expect(new Set(results.map((r) => r.json.secret)).size).toBe(1);
    const again = await e2e.api('POST', '/api/v1/webhooks', body, { 'idempotency-key': 'create-orders-hook' });
    expect(again.json).toEqual(results[0].json);
    const other = await e2e.api('POST', '/api/v1/webhooks', { ...body, url: 'https://example.com/other' }, { 'idempotency-key': 'create-orders-hook' });
    expect(other.status).toBe(409);
    expect((await e2e.api('GET', '/api/v1/webhooks?collection=orders')).json.total).toBe(1);
  });

  it('applies only one of two writes made with the same If-Match, and answers 304 to If-None-Match', async () => {
    const created = await e2e.api('POST', '/api/v1/webhooks', { collection: 'families' });
    const id = created.json._id as string;
    const etag = created.headers.get('etag')!;
    const [a, b] = await Promise.all([
      e2e.api('PUT', `/api/v1/webhooks/${id}`, { collection: 'families', url: 'https://a.example/h' }, { 'if-match': etag }),
      e2e.api('PUT', `/api/v1/webhooks/${id}`, { collection: 'families', url: 'https://b.example/h' }, { 'if-match': etag }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 412]);
    const got = await e2e.api('GET', `/api/v1/webhooks/${id}`);
    expect(got.headers.get('etag')).toBe('"2"');
    const unchanged = await e2e.api('GET', `/api/v1/webhooks/${id}`, undefined, { 'if-none-match': '"2"' });
    expect(unchanged.status).toBe(304);
  });
});
