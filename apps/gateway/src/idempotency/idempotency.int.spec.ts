import { IdempotencyService } from './idempotency.service';
import { gatewayTestContext, type GatewayTestContext } from '../testing/gateway.context';

describe('gateway: Idempotency-Key on POST', () => {
  let ctx: GatewayTestContext;

  beforeAll(async () => {
    ctx = await gatewayTestContext();
  });

  afterAll(async () => {
    await ctx?.close();
  });

  const keysNamed = async (name: string) =>
    Number((await ctx.ds.query('SELECT count(*) AS n FROM gateway.api_keys WHERE name = $1', [name]))[0].n);

  it('replays the first response for the same key and body, and creates one record', async () => {
    const body = { name: 'idem-1', scopes: ['webhooks:read'] };
    const first = await ctx.request('POST', '/api/v1/api-keys', body, { 'idempotency-key': 'k-1' });
    const again = await ctx.request(
      'POST',
      '/api/v1/api-keys',
      { scopes: ['webhooks:read'], name: 'idem-1' },
      { 'idempotency-key': 'k-1' },
    );
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.json).toEqual(first.json);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await keysNamed('idem-1')).toBe(1);
  });

  it('answers 409 for the same key with a different body', async () => {
    await ctx.request(
      'POST',
      '/api/v1/api-keys',
      { name: 'idem-2', scopes: ['webhooks:read'] },
      { 'idempotency-key': 'k-2' },
    );
    const other = await ctx.request(
      'POST',
      '/api/v1/api-keys',
      { name: 'idem-2b', scopes: ['webhooks:read'] },
      { 'idempotency-key': 'k-2' },
    );
    expect(other.status).toBe(409);
    expect(other.json).toMatchObject({ name: 'ConflictError', title: 'Idempotency-Key reused' });
    expect(await keysNamed('idem-2b')).toBe(0);
  });

  it('runs ten concurrent requests with one key once, all answered alike', async () => {
    const body = { name: 'idem-3', scopes: ['webhooks:read'] };
    const results = await Promise.all(
      Array.from({ length: 10 }, () => ctx.request('POST', '/api/v1/api-keys', body, { 'idempotency-key': 'k-3' })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    expect(new Set(results.map((r) => r.json._id)).size).toBe(1);
    expect(await keysNamed('idem-3')).toBe(1);
  });

  it('keeps keys of different callers apart, and replays client errors too', async () => {
    const other = await ctx.newKey(['admin']);
    const a = await ctx.request(
      'POST',
      '/api/v1/api-keys',
      { name: 'idem-4', scopes: ['webhooks:read'] },
      { 'idempotency-key': 'shared' },
    );
    const b = await ctx.request(
      'POST',
      '/api/v1/api-keys',
      { name: 'idem-4', scopes: ['webhooks:read'] },
      { 'idempotency-key': 'shared', authorization: `Bearer ${other}` },
    );
    expect(a.json._id).not.toBe(b.json._id);
    const bad = { name: 'idem-5', scopes: [] };
    const e1 = await ctx.request('POST', '/api/v1/api-keys', bad, { 'idempotency-key': 'k-5' });
    expect(e1.status).toBe(400);
    const e2 = await ctx.request('POST', '/api/v1/api-keys', bad, { 'idempotency-key': 'k-5' });
    expect(e2.status).toBe(400);
  });

  it('releases the key when the response cannot be kept, so a retry runs instead of waiting', async () => {
    const service = new IdempotencyService(ctx.ds, { retentionMs: 3_600_000, waitMs: 200, pollMs: 20 });
    // jsonb cannot hold U+0000: storing this answer fails.
    const unstorable = async () => ({ status: 400, headers: {}, body: { message: 'bad \u0000' } });
    await expect(service.run('owner-nul', 'k-nul', 'h', unstorable)).rejects.toThrow();
    const retried = await service.run('owner-nul', 'k-nul', 'h', async () => ({ status: 201, headers: {}, body: {} }));
    expect(retried).toEqual({ response: { status: 201, headers: {}, body: {} }, replayed: false });
  });

  it('gives every run of one request the same token for its calls: after a 5xx, and only for that request', async () => {
    const service = new IdempotencyService(ctx.ds, { retentionMs: 3_600_000, waitMs: 200, pollMs: 20 });
    const tokens: string[] = [];
    const failing = async (token: string) => {
      tokens.push(token);
      return { status: 503, headers: {}, body: {} };
    };
    const answering = async (token: string) => {
      tokens.push(token);
      return { status: 201, headers: {}, body: { token } };
    };
    await service.run('owner-tok', 'k-tok', 'h-1', failing);
    const retried = await service.run('owner-tok', 'k-tok', 'h-1', answering);
    // The retry after the 5xx is the same request: its calls carry the same token, so an app that
    // carried a call out answers it from that run.
    expect(tokens).toHaveLength(2);
    expect(tokens[1]).toBe(tokens[0]);
    expect(retried.response.body).toEqual({ token: tokens[0] });
    // Another body under another key is another request; so is the same key used again once its
    // record has expired.
    await service.run('owner-tok', 'k-tok-2', 'h-2', answering);
    expect(tokens[2]).not.toBe(tokens[0]);
    await ctx.ds.query(
      `UPDATE gateway.idempotency_records SET created_at = now() - interval '2 hours', first_claimed_at = now() - interval '2 hours'
       WHERE owner = 'owner-tok' AND key = 'k-tok'`,
    );
    await service.run('owner-tok', 'k-tok', 'h-1', answering);
    expect(tokens[3]).not.toBe(tokens[0]);
  });

  it('keeps a released claim until its request expires, so a late retry still carries the first token', async () => {
    const service = new IdempotencyService(ctx.ds, { retentionMs: 3_600_000, waitMs: 200, pollMs: 20 });
    await service.run('owner-rel', 'k-rel', 'h', async () => ({ status: 500, headers: {}, body: {} }));
    await service.purgeExpired();
    const [row] = await ctx.ds.query(
      `SELECT response_status, first_claimed_at FROM gateway.idempotency_records WHERE owner = 'owner-rel'`,
    );
    expect(row).toMatchObject({ response_status: null });
  });

  it('refuses a malformed Idempotency-Key', async () => {
    const r = await ctx.request(
      'POST',
      '/api/v1/api-keys',
      { name: 'x', scopes: ['admin'] },
      { 'idempotency-key': 'x'.repeat(300) },
    );
    expect(r.status).toBe(400);
    expect(r.json.title).toBe('Invalid Idempotency-Key');
  });
});
