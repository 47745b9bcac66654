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

  const WEBHOOK_KEYS = ['_id', 'body', 'collection', 'created_at', 'created_by_name', 'enabled', 'headers', 'updated_at', 'url', 'version'];

  it('PUT upserts by collection: 200 with every field, again updates the same record', async () => {
    const first = await e2e.api('PUT', '/api/v1/webhooks', { collection: 'products', url: 'https://example.com/h' });
    expect(first.status).toBe(200);
    expect(Object.keys(first.json).sort()).toEqual([...WEBHOOK_KEYS, 'secret'].sort());
    expect(first.json).toMatchObject({ collection: 'products', url: 'https://example.com/h', headers: [], body: [], enabled: true, version: 1, created_by_name: 'admin' });
    expect(first.json._id).toMatch(/^[0-9a-f]{24}$/);
    expect(first.json.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(first.headers.get('etag')).toBe('"1"');

    const again = await e2e.api('PUT', '/api/v1/webhooks', { collection: 'products', url: 'https://example.com/h2' });
    expect(again.status).toBe(200);
    expect(again.json._id).toBe(first.json._id);
    expect(again.json.version).toBe(2);
    expect(again.json.secret).toBeUndefined();

    const all = await e2e.api('GET', '/api/v1/webhooks?collection=products');
    expect(all.json.total).toBe(1);
  });

  it('lists with filters, sort and pages in the 12-field envelope', async () => {
    for (const c of ['orders', 'imports', 'exports']) {
      expect((await e2e.api('POST', '/api/v1/webhooks', { collection: c, url: `https://example.com/${c}` })).status).toBe(201);
    }
    expect((await e2e.api('PUT', '/api/v1/webhooks', { collection: 'brands', enabled: false })).status).toBe(200);

    const r = await e2e.api('GET', '/api/v1/webhooks?enabled=true&sort=-created_at&page=1&limit=2');
    expect(r.status).toBe(200);
    expect(Object.keys(r.json)).toEqual(['page', 'skip', 'limit', 'sort', 'pages', 'total', 'next', 'previous', 'nextUrl', 'previousUrl', 'filters', 'data']);
    expect(r.json).toMatchObject({ page: 1, skip: 0, limit: 2, sort: { created_at: 'desc' }, pages: 2, total: 4, next: true, previous: false, previousUrl: false, filters: { enabled: true } });
    expect((r.json.data as { collection: string }[]).map((w) => w.collection)).toEqual(['exports', 'imports']);
    const nextUrl = r.json.nextUrl as string;
    expect(nextUrl).toContain('page=2');

    const next = await e2e.api('GET', nextUrl.replace(/^https?:\/\/[^/]+/, ''));
    expect(next.json).toMatchObject({ page: 2, next: false, previous: true, nextUrl: '' });
    expect((next.json.data as { collection: string }[]).map((w) => w.collection)).toEqual(['orders', 'products']);

    const search = await e2e.api('GET', '/api/v1/webhooks?_search=IMPORT');
    expect((search.json.data as { collection: string }[]).map((w) => w.collection)).toEqual(['imports']);
  });

  it('reads, replaces, patches with If-Match and deletes by id', async () => {
    const created = await e2e.api('POST', '/api/v1/webhooks', { collection: 'families', url: 'https://example.com/f', headers: [{ key: 'X-Api-Key', value: 'k' }] });
    expect(created.status).toBe(201);
    expect(created.json.secret).toMatch(/^whsec_/);
    expect(created.headers.get('location')).toBe(`/api/v1/webhooks/${created.json._id}`);
    const id = created.json._id as string;

    const got = await e2e.api('GET', `/api/v1/webhooks/${id}`);
    expect(got.json.secret).toBeUndefined();
    expect(got.json.headers).toEqual([{ key: 'X-Api-Key', value: 'k' }]);

    const patched = await e2e.api('PATCH', `/api/v1/webhooks/${id}`, { enabled: false }, { 'if-match': '"1"' });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ enabled: false, version: 2, headers: [{ key: 'X-Api-Key', value: 'k' }] });
    const stale = await e2e.api('PATCH', `/api/v1/webhooks/${id}`, { enabled: true }, { 'if-match': '"1"' });
    expect(stale.status).toBe(412);
    expect(stale.json.name).toBe('PreconditionFailedError');

    const replaced = await e2e.api('PUT', `/api/v1/webhooks/${id}`, { collection: 'families' });
    expect(replaced.json).toMatchObject({ headers: [], enabled: true, version: 3 });
    expect(replaced.json.url).toBeUndefined();

    expect((await e2e.api('DELETE', `/api/v1/webhooks/${id}`)).status).toBe(204);
    const gone = await e2e.api('GET', `/api/v1/webhooks/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.json.name).toBe('NotFoundError');
  });

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
      ['PUT', '/api/v1/webhooks', { collection: 'products', url: `https://example.com/${'a'.repeat(1_100_000)}` }, 413, 'PayloadTooLargeError'],
    ];
    for (const [method, path, body, status, name] of cases) {
      const r = await e2e.api(method, path, body);
      expect({ method, path, status: r.status, name: r.json.name }).toEqual({ method, path, status, name });
      expect(r.json).toMatchObject({ code: status, kind: expect.any(String), title: expect.any(String), message: expect.any(String), solution: expect.any(String) });
    }
    const unknown = await e2e.api('GET', '/api/v1/webhooks?nosuchfield=1');
    expect(unknown.json.message).toMatch(/Allowed filters: .*collection/);
    const conflict = await e2e.api('POST', '/api/v1/webhooks', { collection: 'products' });
    expect(conflict.json.message).toContain('already has a webhook');
  });

  it('serves the collections, the OpenAPI document and the docs page', async () => {
    const cols = await e2e.api('GET', '/api/v1/collections');
    expect((cols.json.data as { name: string }[]).length).toBeGreaterThanOrEqual(20);
    const doc = await e2e.api('GET', '/api/v1/openapi.json');
    expect(doc.json.openapi).toBe('3.1.0');
    const docs = await fetch(e2e.platform.docsUrl + '/');
    expect(docs.status).toBe(200);
  });

  it('publishes exactly one event per write on JetStream', async () => {
    const before = (await e2e.stream.messages()).length;
    const created = await e2e.api('POST', '/api/v1/webhooks', { collection: 'channels' });
    const id = created.json._id as string;
    await e2e.api('PATCH', `/api/v1/webhooks/${id}`, { enabled: false });
    await e2e.api('DELETE', `/api/v1/webhooks/${id}`);
    await e2e.api('PATCH', `/api/v1/webhooks/${id}`, { enabled: true }); // 404: no event
    await eventually(async () => (await e2e.stream.messages()).length >= before + 3);
    await new Promise((r) => setTimeout(r, 300));
    const mine = (await e2e.stream.messages()).filter((m) => (m.data as { data: { _id: string } }).data._id === id);
    expect(mine.map((m) => m.subject)).toEqual(['created', 'updated', 'deleted'].map((a) => `${e2e.stream.subjectPrefix}pim.webhooks.webhooks.${a}`));
    for (const m of mine) expect(m.msgId).toBe((m.data as { id: string }).id);
  });

  it('loses no event and duplicates none when the webhooks app is killed right after its writes', async () => {
    const ids: string[] = [];
    for (const c of ['categories', 'category_trees', 'catalogs', 'attributes', 'attribute_groups']) {
      const r = await e2e.api('PUT', '/api/v1/webhooks', { collection: c });
      expect(r.status).toBe(200);
      ids.push(r.json._id as string);
    }
    e2e.platform.kill('webhooks', 'SIGKILL');
    const down = await e2e.api('GET', '/api/v1/webhooks');
    expect(down.status).toBe(503);
    expect(down.json.name).toBe('UnavailableError');
    expect(Number(down.headers.get('retry-after'))).toBeGreaterThan(0);

    await e2e.platform.restart('webhooks');
    const created = async () =>
      (await e2e.stream.messages()).filter((m) => m.subject.endsWith('.created') && ids.includes((m.data as { data: { _id: string } }).data._id));
    await eventually(async () => (await created()).length >= ids.length);
    await new Promise((r) => setTimeout(r, 500));
    const events = await created();
    expect(events.map((m) => (m.data as { data: { _id: string } }).data._id).sort()).toEqual([...ids].sort());
    expect((await e2e.api('GET', '/api/v1/webhooks')).status).toBe(200);
  });
});
