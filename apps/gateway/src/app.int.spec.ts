import { gatewayTestContext, type GatewayTestContext } from './testing/gateway.context';

// The gateway with its own database (keys, limits, idempotency) and its webhooks app unreachable:
// every check that happens before the gRPC call answers with its error object, the call itself 503.
describe('gateway: HTTP hardening and error objects', () => {
  let ctx: GatewayTestContext;

  beforeAll(async () => {
    ctx = await gatewayTestContext({ jsonBodyLimit: '1kb' });
  });

  afterAll(async () => {
    await ctx?.close();
  });

  const expectErrorObject = (json: Record<string, unknown>, code: number, name: string) => {
    expect(json).toMatchObject({
      code,
      name,
      kind: expect.any(String),
      title: expect.any(String),
      message: expect.any(String),
      solution: expect.any(String),
      request_id: expect.any(String),
    });
    expect(JSON.stringify(json)).not.toMatch(/at \w+ \(|node_modules|SELECT /);
  };

  it('answers malformed JSON with a 400 error object', async () => {
    const r = await ctx.request('PUT', '/api/v1/webhooks', '{"collection": ');
    expect(r.status).toBe(400);
    expectErrorObject(r.json, 400, 'ValidationError');
    expect(r.json.title).toBe('Malformed JSON');
  });

  it('answers a body over the limit with 413', async () => {
    const r = await ctx.request('PUT', '/api/v1/webhooks', {
      collection: 'products',
      url: `https://e.com/${'x'.repeat(2000)}`,
    });
    expect(r.status).toBe(413);
    expectErrorObject(r.json, 413, 'PayloadTooLargeError');
  });

  it('lets bulk routes take bodies over the ordinary limit', async () => {
    const items = Array.from({ length: 20 }, (_, i) => ({
      code: `P-${i}`,
      name: { pt: 'x'.repeat(100) },
      type: 'simple',
    }));
    const r = await ctx.request('POST', '/api/v1/products/bulk', { items });
    expect(JSON.stringify({ items }).length).toBeGreaterThan(1024);
    expect(r.status).not.toBe(413);
    expect(r.status).toBe(503); // parsed and validated, then the (absent) catalog app is asked
  });

  it('answers a non-JSON content type with 415', async () => {
    const r = await ctx.request('POST', '/api/v1/webhooks', 'collection=products', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(r.status).toBe(415);
    expectErrorObject(r.json, 415, 'UnsupportedMediaTypeError');
  });

  it('names unknown fields and bad values in details', async () => {
    const r = await ctx.request('PUT', '/api/v1/webhooks', { collection: 'products', url: '/relative', colour: 'red' });
    expect(r.status).toBe(400);
    expect((r.json.details as { field: string }[]).map((d) => d.field).sort()).toEqual(['colour', 'url']);
  });

  it('answers an unknown filter with 400 naming the allowed filters', async () => {
    const r = await ctx.request('GET', '/api/v1/webhooks?nosuchfield=1');
    expect(r.status).toBe(400);
    expectErrorObject(r.json, 400, 'ValidationError');
    expect(r.json.message).toContain('nosuchfield');
    expect(r.json.message).toContain('enabled');
  });

  it('answers a bad id with 400 and a bad If-Match with 400', async () => {
    expect((await ctx.request('GET', '/api/v1/webhooks/not-an-id')).status).toBe(400);
    const r = await ctx.request('PATCH', '/api/v1/webhooks/6740a1b2c3d4e5f601234567', {}, { 'if-match': 'garbage' });
    expect(r.status).toBe(400);
    expect(r.json.title).toBe('Invalid If-Match');
  });

  it('answers 503 with Retry-After when the owning app is down', async () => {
    const r = await ctx.request('GET', '/api/v1/webhooks');
    expect(r.status).toBe(503);
    expectErrorObject(r.json, 503, 'UnavailableError');
    expect(r.json.message).toContain('webhooks');
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('answers unknown routes with a 404 error object and echoes X-Request-Id', async () => {
    const r = await ctx.request('GET', '/api/v1/nothing-here', undefined, { 'x-request-id': 'abc-123' });
    expect(r.status).toBe(404);
    expect(r.headers.get('x-request-id')).toBe('abc-123');
    expect(r.json.request_id).toBe('abc-123');
  });

  it('sends security headers, CORS only to configured origins, and no X-Powered-By', async () => {
    const r = await ctx.request('GET', '/api/v1/collections', undefined, { origin: 'https://app.example.com' });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('strict-transport-security')).toBeTruthy();
    expect(r.headers.get('x-powered-by')).toBeNull();
    expect(r.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    const other = await ctx.request('GET', '/api/v1/collections', undefined, { origin: 'https://evil.example' });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('serves collections, the OpenAPI document and the docs page (the last two without a key)', async () => {
    const cols = await ctx.request('GET', '/api/v1/collections');
    expect((cols.json.data as { name: string }[]).map((c) => c.name)).toContain('products');
    const doc = await ctx.request('GET', '/api/v1/openapi.json', undefined, { authorization: '' });
    expect(doc.json.openapi).toBe('3.1.0');
    const paths = doc.json.paths as Record<string, Record<string, unknown>>;
    expect(Object.keys(paths['/api/v1/webhooks']).sort()).toEqual(['get', 'post', 'put']);
    expect(Object.keys(paths['/api/v1/webhooks/{id}']).sort()).toEqual(['delete', 'get', 'patch', 'put']);
    const docs = await fetch(`${ctx.base}/docs/`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger-ui');
  });

  it('reports liveness always and readiness with dependency states', async () => {
    expect((await ctx.request('GET', '/healthz', undefined, { authorization: '' })).status).toBe(200);
    const ready = await ctx.request('GET', '/readyz', undefined, { authorization: '' });
    expect(ready.status).toBe(200);
    expect(ready.json.dependencies).toEqual({ webhooks: 'UNREACHABLE' });
  });
});
