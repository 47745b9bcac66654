import { LIST_ENVELOPE_KEYS } from '@pim/query';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, startE2E, type E2E } from './platform';

// HTTP → gateway → gRPC → webhooks app → Postgres schema → outbox → JetStream, driven only over HTTP.
describe('webhooks through the whole platform', () => {
  let e2e: E2E;

  beforeAll(async () => {
    e2e = await startE2E('e2ewebhooks');
  });

  afterAll(async () => {
    await e2e?.close();
  });

  const WEBHOOK_KEYS = [
    '_id',
    'body',
    'collection',
    'created_at',
    'created_by_name',
    'enabled',
    'headers',
    'updated_at',
    'url',
    'version',
  ];

  it('PUT upserts by collection: 200 with every field, again updates the same record', async () => {
    const first = await e2e.client.PUT('/api/v1/webhooks', {
      body: { collection: 'products', url: 'https://example.com/h' },
    });
    expect(first.response.status).toBe(200);
    const created = first.data!;
    expect(Object.keys(created).sort()).toEqual([...WEBHOOK_KEYS, 'secret'].sort());
    expect(created).toMatchObject({
      collection: 'products',
      url: 'https://example.com/h',
      headers: [],
      body: [],
      enabled: true,
      version: 1,
      created_by_name: 'admin',
    });
    expect(created._id).toMatch(/^[0-9a-f]{24}$/);
    expect(created.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(first.response.headers.get('etag')).toBe('"1"');

    const again = await e2e.client.PUT('/api/v1/webhooks', {
      body: { collection: 'products', url: 'https://example.com/h2' },
    });
    expect(again.response.status).toBe(200);
    expect(again.data?._id).toBe(created._id);
    expect(again.data?.version).toBe(2);
    expect(again.data?.secret).toBeUndefined();

    const all = await e2e.client.GET('/api/v1/webhooks', { params: { query: { filter: { collection: 'products' } } } });
    expect(all.data?.total).toBe(1);
  });

  it('lists with filters, sort and pages in the 12-field envelope', async () => {
    for (const c of ['orders', 'imports', 'exports'] as const) {
      expect(
        (await e2e.client.POST('/api/v1/webhooks', { body: { collection: c, url: `https://example.com/${c}` } }))
          .response.status,
      ).toBe(201);
    }
    expect(
      (await e2e.client.PUT('/api/v1/webhooks', { body: { collection: 'brands', enabled: false } })).response.status,
    ).toBe(200);

    const r = await e2e.client.GET('/api/v1/webhooks', {
      params: { query: { filter: { enabled: true }, sort: '-created_at', page: 1, limit: 2 } },
    });
    expect(r.response.status).toBe(200);
    const page = r.data!;
    expect(Object.keys(page)).toEqual([...LIST_ENVELOPE_KEYS]);
    expect(page).toMatchObject({
      page: 1,
      skip: 0,
      limit: 2,
      sort: { created_at: 'desc' },
      pages: 2,
      total: 4,
      next: true,
      previous: false,
      previousUrl: false,
      filters: { enabled: true },
    });
    expect(page.data.map((w) => w.collection)).toEqual(['exports', 'imports']);
    expect(page.nextUrl).toContain('page=2');

    // A page URL is followed as given (raw), exactly as a caller would.
    const next = await e2e.api('GET', page.nextUrl.replace(/^https?:\/\/[^/]+/, ''));
    expect(next.json).toMatchObject({ page: 2, next: false, previous: true, nextUrl: '' });
    expect((next.json.data as { collection: string }[]).map((w) => w.collection)).toEqual(['orders', 'products']);

    const search = await e2e.client.GET('/api/v1/webhooks', { params: { query: { _search: 'IMPORT' } } });
    expect(search.data?.data.map((w) => w.collection)).toEqual(['imports']);
  });

  it('reads, replaces, patches with If-Match and deletes by id', async () => {
    const created = await e2e.client.POST('/api/v1/webhooks', {
      body: { collection: 'families', url: 'https://example.com/f', headers: [{ key: 'X-Api-Key', value: 'k' }] },
    });
    expect(created.response.status).toBe(201);
    const id = created.data!._id;
    expect(created.data?.secret).toMatch(/^whsec_/);
    expect(created.response.headers.get('location')).toBe(`/api/v1/webhooks/${id}`);
    const path = { params: { path: { id } } };

    const got = await e2e.client.GET('/api/v1/webhooks/{id}', path);
    expect(got.data).not.toHaveProperty('secret');
    expect(got.data?.headers).toEqual([{ key: 'X-Api-Key', value: 'k' }]);

    const patched = await e2e.client.PATCH('/api/v1/webhooks/{id}', {
      params: { path: { id }, header: { 'if-match': '"1"' } },
      body: { enabled: false },
    });
    expect(patched.response.status).toBe(200);
    expect(patched.data).toMatchObject({ enabled: false, version: 2, headers: [{ key: 'X-Api-Key', value: 'k' }] });
    const stale = await e2e.client.PATCH('/api/v1/webhooks/{id}', {
      params: { path: { id }, header: { 'if-match': '"1"' } },
      body: { enabled: true },
    });
    expect(stale.response.status).toBe(412);
    expect(stale.error?.name).toBe('PreconditionFailedError');

    const replaced = await e2e.client.PUT('/api/v1/webhooks/{id}', { ...path, body: { collection: 'families' } });
    expect(replaced.data).toMatchObject({ headers: [], enabled: true, version: 3 });
    expect(replaced.data?.url).toBeUndefined();

    expect((await e2e.client.DELETE('/api/v1/webhooks/{id}', path)).response.status).toBe(204);
    const gone = await e2e.client.GET('/api/v1/webhooks/{id}', path);
    expect(gone.response.status).toBe(404);
    expect(gone.error?.name).toBe('NotFoundError');
  });

  // Raw requests: these are exactly what a typed client cannot send.
  it('answers every bad input with the error object, never a 500', async () => {
    const cases: [string, string, unknown, number, string][] = [
      ['GET', '/api/v1/webhooks?nosuchfield=1', undefined, 400, 'ValidationError'],
      ['GET', '/api/v1/webhooks?limit=1000', undefined, 400, 'ValidationError'],
      ['GET', '/api/v1/webhooks?sort=secret', undefined, 400, 'ValidationError'],
      ['PUT', '/api/v1/webhooks', '{"collection": "products",', 400, 'ValidationError'],
      ['PUT', '/api/v1/webhooks', { collection: 'nope' }, 400, 'ValidationError'],
      ['PUT', '/api/v1/webhooks', { url: 'https://example.com' }, 400, 'ValidationError'],
      ['PUT', '/api/v1/webhooks', { collection: 'products', url: 'javascript:alert(1)' }, 400, 'ValidationError'],
      ['PUT', '/api/v1/webhooks', { collection: 'products', headers: [{ key: 'a' }] }, 400, 'ValidationError'],
      ['PUT', '/api/v1/webhooks', [1, 2], 400, 'ValidationError'],
      ['POST', '/api/v1/webhooks', { collection: 'products' }, 409, 'ConflictError'],
      ['GET', '/api/v1/webhooks/123', undefined, 400, 'ValidationError'],
      ['GET', '/api/v1/webhooks/6740a1b2c3d4e5f601234567', undefined, 404, 'NotFoundError'],
      [
        'PUT',
        '/api/v1/webhooks',
        { collection: 'products', url: `https://example.com/${'a'.repeat(1_100_000)}` },
        413,
        'PayloadTooLargeError',
      ],
    ];
    for (const [method, path, body, status, name] of cases) {
      const r = await e2e.api(method, path, body);
      expect({ method, path, status: r.status, name: r.json.name }).toEqual({ method, path, status, name });
      expect(r.json).toMatchObject({
        code: status,
        kind: expect.any(String),
        title: expect.any(String),
        message: expect.any(String),
        solution: expect.any(String),
      });
    }
    const unknown = await e2e.api('GET', '/api/v1/webhooks?nosuchfield=1');
    expect(unknown.json.message).toMatch(/Allowed filters: .*collection/);
    const conflict = await e2e.client.POST('/api/v1/webhooks', { body: { collection: 'products' } });
    expect(conflict.response.status).toBe(409);
    expect(conflict.error?.message).toContain('already has a webhook');
  });

  it('serves the collections, the OpenAPI document the client is generated from, and the docs page', async () => {
    const cols = await e2e.client.GET('/api/v1/collections');
    expect(cols.data?.data.length).toBeGreaterThanOrEqual(20);
    const doc = await e2e.api('GET', '/api/v1/openapi.json', undefined, { authorization: '' });
    expect(doc.json.openapi).toBe('3.1.0');
    const committed = JSON.parse(
      readFileSync(join(__dirname, '..', '..', 'libs', 'api-client', 'openapi.json'), 'utf8'),
    ) as { servers: { url: string }[] };
    // The same document, but for its server: the gateway's own public URL (the file names npm start's).
    expect(doc.json.servers).toEqual([
      expect.objectContaining({ url: e2e.platform.gatewayUrl.replace(/\/api\/v1$/, '') }),
    ]);
    expect({ ...doc.json, servers: committed.servers }).toEqual(committed);
    const docs = await fetch(e2e.platform.docsUrl + '/');
    expect(docs.status).toBe(200);
  });

  it('publishes exactly one event per write on JetStream', async () => {
    const before = (await e2e.stream.messages()).length;
    const created = await e2e.client.POST('/api/v1/webhooks', { body: { collection: 'channels' } });
    const id = created.data!._id;
    const path = { params: { path: { id } } };
    await e2e.client.PATCH('/api/v1/webhooks/{id}', { ...path, body: { enabled: false } });
    await e2e.client.DELETE('/api/v1/webhooks/{id}', path);
    expect(
      (await e2e.client.PATCH('/api/v1/webhooks/{id}', { ...path, body: { enabled: true } })).response.status,
    ).toBe(404); // no event
    await eventually(async () => (await e2e.stream.messages()).length >= before + 3);
    await new Promise((r) => setTimeout(r, 300));
    const mine = (await e2e.stream.messages()).filter((m) => (m.data as { data: { _id: string } }).data._id === id);
    expect(mine.map((m) => m.subject)).toEqual(
      ['created', 'updated', 'deleted'].map((a) => `${e2e.stream.subjectPrefix}pim.webhooks.webhooks.${a}`),
    );
    for (const m of mine) expect(m.msgId).toBe((m.data as { id: string }).id);
  });

  it('loses no event and duplicates none when the webhooks app is killed right after its writes', async () => {
    const ids: string[] = [];
    for (const c of ['categories', 'category_trees', 'catalogs', 'attributes', 'attribute_groups'] as const) {
      const r = await e2e.client.PUT('/api/v1/webhooks', { body: { collection: c } });
      expect(r.response.status).toBe(200);
      ids.push(r.data!._id);
    }
    e2e.platform.kill('webhooks', 'SIGKILL');
    const down = await e2e.client.GET('/api/v1/webhooks');
    expect(down.response.status).toBe(503);
    expect(down.error?.name).toBe('UnavailableError');
    expect(Number(down.response.headers.get('retry-after'))).toBeGreaterThan(0);

    await e2e.platform.restart('webhooks');
    const created = async () =>
      (await e2e.stream.messages()).filter(
        (m) => m.subject.endsWith('.created') && ids.includes((m.data as { data: { _id: string } }).data._id),
      );
    await eventually(async () => (await created()).length >= ids.length);
    await new Promise((r) => setTimeout(r, 500));
    const events = await created();
    expect(events.map((m) => (m.data as { data: { _id: string } }).data._id).sort()).toEqual([...ids].sort());
    // The gateway reconnects to the restarted app by itself.
    await eventually(async () => (await e2e.client.GET('/api/v1/webhooks')).response.status === 200);
  });
});
