import { Pool } from 'pg';
import { gatewayTestContext, type GatewayTestContext } from '../testing/gateway.context';
import { SCHEMA } from '../data-source';
import { RateLimiter, leaseSize } from './rate-limit';

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
      Array.from({ length: 120 }, (_, i) =>
        ctx.request(
          'GET',
          '/api/v1/collections',
          undefined,
          { authorization: `Bearer ${key}` },
          i % 2 ? second : ctx.base,
        ),
      ),
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
    for (let i = 0; i < 7; i++)
      statuses.push(
        (await ctx.request('GET', '/api/v1/collections', undefined, { authorization: 'Bearer wrong' })).status,
      );
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
  });

  it('takes points in leases of 1% of a larger limit: one upsert per lease, never more than the limit over two replicas', async () => {
    expect([leaseSize(100), leaseSize(199), leaseSize(600), leaseSize(1_000_000)]).toEqual([1, 1, 6, 50]);
    const pool = new Pool({ connectionString: ctx.db.url, max: 4 });
    try {
      const a = new RateLimiter(pool, 500, { schema: SCHEMA, keyPrefix: 'lease' });
      const b = new RateLimiter(pool, 500, { schema: SCHEMA, keyPrefix: 'lease' });
      const points = async (key: string) =>
        (
          (await pool.query(`SELECT points FROM ${SCHEMA}.rate_limits WHERE key = $1`, [`lease:${key}`])).rows[0] as {
            points: number;
          }
        ).points;

      const states = [];
      for (let i = 0; i < 12; i++) states.push(await a.consume('single'));
      expect(await points('single')).toBe(15); // three leases of 5 for 12 requests
      expect(states.map((s) => s.remaining)).toEqual([499, 498, 497, 496, 495, 494, 493, 492, 491, 490, 489, 488]);

      const outcomes = await Promise.allSettled(
        Array.from({ length: 600 }, (_, i) => (i % 2 ? a : b).consume('burst')),
      );
      const passed = outcomes.filter((o) => o.status === 'fulfilled').length;
      const refused = outcomes.filter((o) => o.status === 'rejected');
      expect(passed).toBeLessThanOrEqual(500);
      expect(passed).toBeGreaterThanOrEqual(500 - 2 * (leaseSize(500) - 1));
      expect(refused.every((o) => (o as PromiseRejectedResult).reason.name === 'RateLimitError')).toBe(true);
    } finally {
      await pool.end();
    }
  });
});
