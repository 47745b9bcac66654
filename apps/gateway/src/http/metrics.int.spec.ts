import { Registry } from 'prom-client';
import { gatewayTestContext, type GatewayTestContext } from '../testing/gateway.context';

/** The value of the sample of `name` whose labels are exactly `labels` (0 when there is none). */
async function sample(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const wanted = `${name}{${Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',')}} `;
  const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(wanted));
  return line ? Number(line.slice(wanted.length)) : 0;
}

// The gateway on its real database, its webhooks app unreachable (those calls answer 503).
describe('gateway: HTTP metrics by declared route', () => {
  const registry = new Registry();
  let ctx: GatewayTestContext;

  beforeAll(async () => {
    ctx = await gatewayTestContext({ metrics: registry });
  });

  afterAll(async () => {
    await ctx?.close();
  });

  it('counts and times a request under its declared route pattern, never its URL', async () => {
    expect((await ctx.request('GET', '/api/v1/api-keys')).status).toBe(200);
    for (const id of ['6740a1b2c3d4e5f601234567', '6740a1b2c3d4e5f601234568'])
      expect((await ctx.request('GET', `/api/v1/webhooks/${id}`)).status).toBe(503);

    expect(
      await sample(registry, 'pim_http_requests_total', { method: 'GET', route: '/api/v1/api-keys', status: '200' }),
    ).toBe(1);
    const webhook = { method: 'GET', route: '/api/v1/webhooks/:id', status: '503' };
    expect(await sample(registry, 'pim_http_requests_total', webhook)).toBe(2);
    expect(await sample(registry, 'pim_http_request_duration_seconds_count', webhook)).toBe(2);
    expect(await sample(registry, 'pim_http_request_duration_seconds_bucket', { le: '+Inf', ...webhook })).toBe(2);
    expect(await registry.metrics()).not.toContain('6740a1b2c3d4e5f60123456');
  });

  it('counts a request refused before its handler (no key) under the route it was for', async () => {
    const r = await ctx.request('GET', '/api/v1/webhooks/6740a1b2c3d4e5f601234569', undefined, { authorization: '' });
    expect(r.status).toBe(401);
    expect(
      await sample(registry, 'pim_http_requests_total', {
        method: 'GET',
        route: '/api/v1/webhooks/:id',
        status: '401',
      }),
    ).toBe(1);
  });

  it('counts every path no route declares under the one unmatched label', async () => {
    expect((await ctx.request('GET', '/api/v1/no-such-things/6740a1b2c3d4e5f601234567')).status).toBe(404);
    expect((await ctx.request('GET', '/api/v1/no-such-things/6740a1b2c3d4e5f601234568')).status).toBe(404);
    expect((await ctx.request('GET', '/nothing-here')).status).toBe(404);
    // A declared path with a method it does not take is not that route (a 405 naming the methods it takes).
    expect((await ctx.request('PATCH', '/api/v1/api-keys')).status).toBe(405);

    expect(
      await sample(registry, 'pim_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }),
    ).toBe(3);
    expect(
      await sample(registry, 'pim_http_requests_total', { method: 'PATCH', route: 'unmatched', status: '405' }),
    ).toBe(1);
    const routes = new Set(
      [...(await registry.metrics()).matchAll(/^pim_http_requests_total\{[^}]*route="([^"]*)"/gm)].map((m) => m[1]),
    );
    expect([...routes].filter((r) => r.includes('no-such') || r.includes('nothing'))).toEqual([]);
  });

  it('names the routes outside the API (health, the document) by their path', async () => {
    expect((await ctx.request('GET', '/healthz')).status).toBe(200);
    expect((await ctx.request('GET', '/api/v1/openapi.json')).status).toBe(200);
    expect(await sample(registry, 'pim_http_requests_total', { method: 'GET', route: '/healthz', status: '200' })).toBe(
      1,
    );
    expect(
      await sample(registry, 'pim_http_requests_total', {
        method: 'GET',
        route: '/api/v1/openapi.json',
        status: '200',
      }),
    ).toBe(1);
  });
});
