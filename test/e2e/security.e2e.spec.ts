import { spawn, type ChildProcess } from 'node:child_process';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';
import { createPimClient } from '@pim/api-client';
import { eventually, startE2E, type E2E } from './platform';

type Json = Record<string, unknown>;

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
    e2e = await startE2E('e2esecurity', {
      RATE_LIMIT_PER_MINUTE: '100',
      // The receiver of the delivered payloads below listens on loopback.
      WEBHOOKS_ALLOWED_TARGETS: '127.0.0.0/8',
    });
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
    // A whole platform and a second gateway: on two shared cores this can take more than a minute.
  }, 180_000);

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
    // Bound to a user, so it writes webhooks only with `admin` (see the webhooks test below).
    const writer = e2e.clientWith(
      await e2e.newKey(['admin'], { user_id: '6740a1b2c3d4e5f601234567', user_name: 'Maria Silva' }),
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
      (await e2e.client.GET('/api/v1/webhooks', { params: { query: { filter: { collection: 'orders' } } } })).data
        ?.total,
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

  // Issue 30, a hostile user's audit: `__proto__`, the one key a JSON object cannot carry into a
  // plain JavaScript object, is refused (400 naming its place) wherever a caller names a key, and
  // nothing is stored; keys named like Object.prototype's members are data all the way through.
  describe('keys named like the prototype', () => {
    let admin: string;
    /** A raw call with this test's own admin key (the platform's counts against its rate limit). */
    const call = (method: string, path: string, body?: unknown) =>
      e2e.api(method, path, body, { authorization: `Bearer ${admin}` });
    const total = async (path: string) => (await call('GET', path)).json.total;
    /** What every refusal of `__proto__` looks like, at `field`. */
    const refusedAt = (field: string) => ({
      code: 400,
      kind: 'validation',
      message: expect.stringContaining(`${field}: the key __proto__ cannot be stored`),
      solution: expect.stringContaining('Rename the key __proto__'),
      details: [{ field, message: 'the key __proto__ cannot be stored; rename it' }],
    });
    const order = (code: string, metadata: string) =>
      `{"code":"${code}","external_code":"ext-${code}","workflow_code":"security_flow","channel":{"code":"shop"},` +
      `"customer":{"name":"Bia"},"items_count":1,"metadata":${metadata}}`;

    beforeAll(async () => {
      admin = await e2e.newKey(['admin']);
      const flow = await call('POST', '/api/v1/workflows', {
        code: 'security_flow',
        name: 'Security flow',
        enabled: true,
        steps: [{ name: 'Open', code: 'open', allocation_time: 4, status: [{ code: 'new', name: 'New' }] }],
      });
      expect(flow.status).toBe(201);
    });

    it('refuses __proto__ in an order, a webhook, a product, a bulk item, a query and a form, storing nothing', async () => {
      // Raw JSON: a JavaScript object literal cannot even hold the key.
      const ordered = await call('POST', '/api/v1/orders', order('proto_1', '{"a":1,"__proto__":{"admin":true}}'));
      expect([ordered.status, ordered.json]).toEqual([400, expect.objectContaining(refusedAt('metadata.__proto__'))]);
      expect(await total('/api/v1/orders?limit=1')).toBe(0);

      // A body pair is a key of every delivered payload: refused by its place in the body array.
      const hooked = await call('PUT', '/api/v1/webhooks', {
        collection: 'categories',
        url: 'https://hooks.example.com/c',
        body: [{ key: '__proto__', value: '{"admin":true}' }],
      });
      expect(hooked.status).toBe(400);
      expect(hooked.json.details).toEqual([
        { field: 'body.0.key', message: 'the key __proto__ cannot be stored; rename it' },
      ]);
      const rawHook = await call('POST', '/api/v1/webhooks', '{"collection":"categories","__proto__":{}}');
      expect([rawHook.status, rawHook.json]).toEqual([400, expect.objectContaining(refusedAt('__proto__'))]);
      expect(await total('/api/v1/webhooks?collection=categories')).toBe(0);

      const product = await call(
        'POST',
        '/api/v1/products',
        '{"code":"proto_p","type":"simple","name":{"en":"Lamp","__proto__":"x"}}',
      );
      expect([product.status, product.json]).toEqual([400, expect.objectContaining(refusedAt('name.__proto__'))]);
      const bulk = await call(
        'POST',
        '/api/v1/products/bulk',
        '{"items":[{"code":"proto_ok","type":"simple","name":{"en":"Fine"}},' +
          '{"code":"proto_bad","type":"simple","name":{"en":"Bad"},"attributes":{"__proto__":{"code":"x"}}}]}',
      );
      expect([bulk.status, bulk.json]).toEqual([
        400,
        expect.objectContaining(refusedAt('items.1.attributes.__proto__')),
      ]);
      // Not even the bulk's good item: the request is refused whole.
      expect(await total('/api/v1/products?limit=1')).toBe(0);

      // A query parameter named __proto__, as an unknown one would be, on a list and on a GET by id.
      const listed = await call('GET', '/api/v1/products?__proto__=1');
      expect([listed.status, listed.json]).toEqual([400, expect.objectContaining(refusedAt('__proto__'))]);
      const byId = await call('GET', '/api/v1/orders/6740a1b2c3d4e5f601234567?__proto__[admin]=1&%5F%5Fproto%5F%5F=1');
      expect([byId.status, byId.json]).toEqual([400, expect.objectContaining(refusedAt('__proto__'))]);

      // A form field of an upload, after the file has started on its way.
      const form = new FormData();
      form.append('file', new Blob(['code,name\nproto_i,Lamp\n']), 'products.csv');
      form.append('__proto__', 'x');
      const uploaded = await fetch(`${e2e.platform.gatewayUrl}/imports`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}` },
        body: form,
      });
      expect([uploaded.status, await uploaded.json()]).toEqual([400, expect.objectContaining(refusedAt('__proto__'))]);
      expect(await total('/api/v1/imports')).toBe(0);
    });

    it('keeps constructor, toString and hasOwnProperty as data: an order read back, a webhook delivered', async () => {
      const got: string[] = [];
      const receiver: Server = createHttpServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          got.push(Buffer.concat(chunks).toString('utf8'));
          res.writeHead(200).end('ok');
        });
      });
      await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
      try {
        const pairs = [
          { key: 'constructor', value: 'x' },
          { key: 'toString', value: 'y' },
          { key: 'hasOwnProperty', value: 'z' },
        ];
        const hook = await call('PUT', '/api/v1/webhooks', {
          collection: 'orders',
          url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
          body: pairs,
        });
        expect(hook.status).toBe(200);
        expect(hook.json.body).toEqual(pairs);

        const metadata = {
          constructor: 'x',
          toString: 'y',
          hasOwnProperty: 'z',
          nested: { valueOf: { constructor: ['w'] }, isPrototypeOf: null },
        };
        const created = await call('POST', '/api/v1/orders', order('proto_2', JSON.stringify(metadata)));
        expect(created.status).toBe(201);
        expect(created.json.metadata).toEqual(metadata);
        const id = created.json._id as string;
        expect((await call('GET', `/api/v1/orders/${id}`)).json.metadata).toEqual(metadata);
        // A merge patch adds a member beside them and keeps them.
        const patched = await call('PATCH', `/api/v1/orders/${id}`, { metadata: { propertyIsEnumerable: 'p' } });
        expect(patched.status).toBe(200);
        expect(patched.json.metadata).toEqual({ ...metadata, propertyIsEnumerable: 'p' });

        let delivered: Json | undefined;
        await eventually(async () => {
          delivered = got
            .map((b) => JSON.parse(b) as Json)
            .find((p) => p.type === 'orders.created' && (p.data as Json)._id === id);
          return delivered !== undefined;
        }, 30_000);
        expect(delivered).toMatchObject({ constructor: 'x', toString: 'y', hasOwnProperty: 'z' });
        expect((delivered!.data as Json).metadata).toEqual(metadata);
        // Every later write of the record works too (TypeORM's change detection once read `hasOwnProperty` off the value).
        expect((await call('DELETE', `/api/v1/orders/${id}`)).status).toBe(204);
      } finally {
        receiver.closeAllConnections();
        await new Promise<void>((r) => receiver.close(() => r()));
      }
    });
  });

  // Issue 30: one webhook per collection receives every event whole, so a key bound to a user
  // (whom users groups and attribute groups restrict) neither writes nor reads webhooks.
  describe('webhooks, with a key bound to a user', () => {
    const USER = '6740a1b2c3d4e5f6000000a1';
    let admin: string;
    let restricted: string;
    const as = (key: string, method: string, path: string, body?: unknown) =>
      e2e.api(method, path, body, { authorization: `Bearer ${key}` });

    beforeAll(async () => {
      admin = await e2e.newKey(['admin']);
      // Full product access does not lift it: attribute groups may still hide values from the user.
      const group = await as(admin, 'POST', '/api/v1/users-groups', {
        source_id: 'sso',
        name: 'security',
        users: [{ id: USER, name: 'Rita' }],
        has_full_product_access: true,
      });
      expect(group.status).toBe(201);
      restricted = await e2e.newKey(['webhooks:write', 'products:write'], { user_id: USER, user_name: 'Rita' });
    });

    it('answers 403 to every webhook read and write, and the webhook stays its owner’s', async () => {
      const owned = await as(admin, 'PUT', '/api/v1/webhooks', {
        collection: 'products',
        url: 'https://owner.example.com/products',
      });
      expect(owned.status).toBe(200);
      const id = owned.json._id as string;
      const delivery = '6740a1b2c3d4e5f60000d001';
      const theirs = { collection: 'products', url: 'https://attacker.example.com/p' };
      const calls: [string, string, unknown?][] = [
        ['PUT', '/api/v1/webhooks', theirs],
        ['POST', '/api/v1/webhooks', { collection: 'categories', url: 'https://attacker.example.com/c' }],
        ['PUT', `/api/v1/webhooks/${id}`, theirs],
        ['PATCH', `/api/v1/webhooks/${id}`, { url: theirs.url }],
        ['DELETE', `/api/v1/webhooks/${id}`],
        ['POST', `/api/v1/webhooks/${id}/rotate-secret`],
        ['POST', `/api/v1/webhooks/${id}/test`],
        ['POST', `/api/v1/webhooks/${id}/recover?since=2026-01-01T00:00:00Z`],
        ['POST', `/api/v1/webhooks/${id}/deliveries/${delivery}/redeliver`],
        ['GET', '/api/v1/webhooks'],
        ['GET', `/api/v1/webhooks/${id}`],
        ['GET', `/api/v1/webhooks/${id}/deliveries`],
        ['GET', `/api/v1/webhooks/${id}/deliveries/${delivery}`],
      ];
      for (const [method, path, body] of calls) {
        const r = await as(restricted, method, path, body);
        expect([method, path, r.status, r.json]).toEqual([
          method,
          path,
          403,
          expect.objectContaining({
            kind: 'authorization',
            title: 'Not allowed for a user’s key',
            message: expect.stringContaining('webhooks are platform-wide configuration'),
            solution: expect.stringContaining("a key with the 'admin' scope, or an integration's key bound to no user"),
          }),
        ]);
      }
      const kept = await as(admin, 'GET', `/api/v1/webhooks/${id}`);
      expect(kept.json).toMatchObject({ url: 'https://owner.example.com/products', version: 1 });
      expect((await as(admin, 'GET', '/api/v1/webhooks?collection=categories')).json.total).toBe(0);
      // The same user's products are theirs to write: the rule is about webhooks only.
      const product = await as(restricted, 'POST', '/api/v1/products', {
        code: 'rita_lamp',
        type: 'simple',
        name: { en: 'Lamp' },
      });
      expect(product.status).toBe(201);
    });

    it('lets an admin key bound to a user and an integration key bound to no user write webhooks', async () => {
      const adminOfUser = await e2e.newKey(['admin'], { user_id: USER, user_name: 'Rita' });
      const integration = await e2e.newKey(['webhooks:write']);
      const hook = await as(adminOfUser, 'PUT', '/api/v1/webhooks', {
        collection: 'catalogs',
        url: 'https://owner.example.com/catalogs',
      });
      expect(hook.status).toBe(200);
      const id = hook.json._id as string;
      const patched = await as(integration, 'PATCH', `/api/v1/webhooks/${id}`, { enabled: false });
      expect([patched.status, patched.json.enabled]).toEqual([200, false]);
      expect((await as(integration, 'POST', `/api/v1/webhooks/${id}/rotate-secret`)).status).toBe(200);
      expect((await as(integration, 'GET', `/api/v1/webhooks/${id}/deliveries`)).status).toBe(200);
      expect((await as(adminOfUser, 'DELETE', `/api/v1/webhooks/${id}`)).status).toBe(204);
    });
  });
});
