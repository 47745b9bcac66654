import { gatewayTestContext, type GatewayTestContext } from '../testing/gateway.context';

describe('gateway: rate limits shared by every replica', () => {
  let ctx: GatewayTestContext;
  let second: string;

  beforeAll(async () => {
    ctx = await gatewayTestContext({ ratePerMinute: 100, anonymousRatePerMinute: 5 });
    second = await ctx.addReplica();
  });

  afterAll(async () => {
    await ctx?.close();
  });

  it('lets exactly 100 of a 120-request burst through, spread over two replicas, with RateLimit headers', async () => {
    const key = await ctx.newKey(['webhooks:read']);
    const results = await Promise.all(
      Array.from({ length: 120 }, (_, i) => ctx.request('GET', '/api/v1/collections', undefined, { authorization: `Bearer ${key}` }, i % 2 ? second : ctx.base)),
    );
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect(ok).toHaveLength(100);
    expect(limited).toHaveLength(20);
    for (const r of limited) {
      expect(r.json).toMatchObject({ code: 429, name: 'RateLimitError', kind: 'rate_limit' });
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(r.headers.get('ratelimit-remaining')).toBe('0');
    }
    expect(ok[0].headers.get('ratelimit-limit')).toBe('100');
    expect(Number(ok[0].headers.get('ratelimit-reset'))).toBeGreaterThan(0);
  });

  it('counts each key on its own', async () => {
    const other = await ctx.newKey(['webhooks:read']);
    const r = await ctx.request('GET', '/api/v1/collections', undefined, { authorization: `Bearer ${other}` });
    expect(r.status).toBe(200);
    expect(r.headers.get('ratelimit-remaining')).toBe('99');
  });

  it('limits callers without a valid key by IP address', async () => {
    const statuses = [];
    for (let i = 0; i < 7; i++) statuses.push((await ctx.request('GET', '/api/v1/collections', undefined, { authorization: 'Bearer wrong' })).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
  });
});
