import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { webhooks as pb } from '@pim/contracts';
import { createLogger } from '@pim/logging';
import { HealthChecker, createRpcClient } from '@pim/rpc';
import { createApp } from './app';

// The gateway alone, its webhooks app unreachable: every check that happens before the gRPC call
// answers with its error object, and the call itself answers 503.
describe('gateway without its dependencies', () => {
  let server: Server;
  let base: string;
  const closed = '127.0.0.1:1';
  const webhooks = createRpcClient(pb.WebhooksServiceClient, { service: 'webhooks', address: closed, deadlineMs: 2000 });
  const health = new HealthChecker(closed);

  beforeAll(async () => {
    const app = createApp({
      logger: createLogger({ service: 'gateway-test', level: 'silent' }),
      webhooks,
      dependencies: { webhooks: health },
      jsonBodyLimit: '1kb',
      maxLimit: 100,
      defaultLimit: 25,
      publicUrl: 'http://127.0.0.1',
    });
    app.setReady(true);
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    webhooks.close();
    health.close();
    await new Promise((r) => server.close(r));
  });

  const send = (method: string, path: string, body?: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    fetch(`${base}${path}`, { method, body, headers }).then(async (res) => ({ status: res.status, headers: res.headers, json: (await res.json()) as Record<string, unknown> }));

  const expectErrorObject = (json: Record<string, unknown>, code: number, name: string) => {
    expect(json).toMatchObject({ code, name, kind: expect.any(String), title: expect.any(String), message: expect.any(String), solution: expect.any(String), request_id: expect.any(String) });
    expect(JSON.stringify(json)).not.toMatch(/at \w+ \(|node_modules|SELECT /);
  };

  it('answers malformed JSON with a 400 error object', async () => {
    const r = await send('PUT', '/api/v1/webhooks', '{"collection": ');
    expect(r.status).toBe(400);
    expectErrorObject(r.json, 400, 'ValidationError');
    expect(r.json.title).toBe('Malformed JSON');
  });

  it('answers a body over the limit with 413', async () => {
    const r = await send('PUT', '/api/v1/webhooks', JSON.stringify({ collection: 'products', url: `https://e.com/${'x'.repeat(2000)}` }));
    expect(r.status).toBe(413);
    expectErrorObject(r.json, 413, 'PayloadTooLargeError');
  });

  it('answers a non-JSON content type with 415', async () => {
    const r = await send('POST', '/api/v1/webhooks', 'collection=products', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(r.status).toBe(415);
    expectErrorObject(r.json, 415, 'UnsupportedMediaTypeError');
  });

  it('names unknown fields and bad values in details', async () => {
    const r = await send('PUT', '/api/v1/webhooks', JSON.stringify({ collection: 'products', url: '/relative', colour: 'red' }));
    expect(r.status).toBe(400);
    expect((r.json.details as { field: string }[]).map((d) => d.field).sort()).toEqual(['colour', 'url']);
  });

  it('answers an unknown filter with 400 naming the allowed filters', async () => {
    const r = await send('GET', '/api/v1/webhooks?nosuchfield=1');
    expect(r.status).toBe(400);
    expectErrorObject(r.json, 400, 'ValidationError');
    expect(r.json.message).toContain('nosuchfield');
    expect(r.json.message).toContain('enabled');
  });

  it('answers a bad id with 400 and a bad If-Match with 400', async () => {
    expect((await send('GET', '/api/v1/webhooks/not-an-id')).status).toBe(400);
    const r = await send('PATCH', '/api/v1/webhooks/6740a1b2c3d4e5f601234567', '{}', { 'content-type': 'application/json', 'if-match': 'garbage' });
    expect(r.status).toBe(400);
    expect(r.json.title).toBe('Invalid If-Match');
  });

  it('answers 503 with Retry-After when the owning app is down', async () => {
    const r = await send('GET', '/api/v1/webhooks');
    expect(r.status).toBe(503);
    expectErrorObject(r.json, 503, 'UnavailableError');
    expect(r.json.message).toContain('webhooks');
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('answers unknown routes with a 404 error object and echoes X-Request-Id', async () => {
    const res = await fetch(`${base}/api/v1/nothing-here`, { headers: { 'x-request-id': 'abc-123' } });
    expect(res.status).toBe(404);
    expect(res.headers.get('x-request-id')).toBe('abc-123');
    expect(((await res.json()) as Record<string, unknown>).request_id).toBe('abc-123');
  });

  it('serves collections, the OpenAPI document and the docs page', async () => {
    const cols = await send('GET', '/api/v1/collections');
    expect((cols.json.data as { name: string }[]).map((c) => c.name)).toContain('products');
    const doc = await send('GET', '/api/v1/openapi.json');
    expect(doc.json.openapi).toBe('3.1.0');
    const paths = doc.json.paths as Record<string, Record<string, unknown>>;
    expect(Object.keys(paths['/api/v1/webhooks']).sort()).toEqual(['get', 'post', 'put']);
    expect(Object.keys(paths['/api/v1/webhooks/{id}']).sort()).toEqual(['delete', 'get', 'patch', 'put']);
    const docs = await fetch(`${base}/docs/`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger-ui');
  });

  it('reports liveness always and readiness with dependency states', async () => {
    expect((await send('GET', '/healthz')).status).toBe(200);
    const ready = await send('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.json.dependencies).toEqual({ webhooks: 'UNREACHABLE' });
  });
});
