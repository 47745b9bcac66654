import { setTimeout as sleep } from 'node:timers/promises';
import { IdempotencyService, type StoredResponse } from './idempotency.service';
import { gatewayTestContext, type GatewayTestContext } from '../testing/gateway.context';

// A gateway SIGKILLed while it carries out a POST leaves that request's Idempotency-Key claimed
// and never answered (found by the chaos suite, test/suites/chaos). Its retry, on another gateway or
// the same one restarted, must run once the claim's lease is over instead of waiting for an answer
// that will never come.
describe('gateway: an Idempotency-Key whose request died with its gateway', () => {
  let ctx: GatewayTestContext;
  const opts = { retentionMs: 24 * 3600_000, waitMs: 300, pollMs: 20, claimLeaseMs: 1_500 };
  const created: StoredResponse = { status: 201, headers: {}, body: { _id: 'made-once' } };

  beforeAll(async () => {
    ctx = await gatewayTestContext();
  });

  afterAll(async () => {
    await ctx?.close();
  });

  /** The first try claims the key, then its gateway dies: it never answers and never releases the key. */
  async function claimAndDie(key: string, hash: string): Promise<void> {
    void new IdempotencyService(ctx.ds, opts).run('owner-crash', key, hash, () => new Promise(() => undefined));
    for (let i = 0; i < 100; i++) {
      const rows = await ctx.ds.query('SELECT 1 FROM gateway.idempotency_records WHERE owner = $1 AND key = $2', [
        'owner-crash',
        key,
      ]);
      if (rows.length > 0) return;
      await sleep(10);
    }
    throw new Error('the first try never claimed the key');
  }

  it('answers "in progress" during the lease, then runs the retry once and replays it after', async () => {
    await claimAndDie('k-dead', 'h-1');
    const gateway = new IdempotencyService(ctx.ds, opts);
    let runs = 0;
    const exec = async () => {
      runs += 1;
      return created;
    };
    await expect(gateway.run('owner-crash', 'k-dead', 'h-1', exec)).rejects.toMatchObject({
      title: 'Request in progress',
    });
    expect(runs).toBe(0);

    await sleep(opts.claimLeaseMs);
    expect(await gateway.run('owner-crash', 'k-dead', 'h-1', exec)).toEqual({ response: created, replayed: false });
    expect(await gateway.run('owner-crash', 'k-dead', 'h-1', exec)).toEqual({ response: created, replayed: true });
    expect(runs).toBe(1);
  });

  it('still refuses another request with the dead claim’s key after the lease', async () => {
    await claimAndDie('k-dead-2', 'h-1');
    await sleep(opts.claimLeaseMs);
    await expect(
      new IdempotencyService(ctx.ds, opts).run('owner-crash', 'k-dead-2', 'h-other', async () => created),
    ).rejects.toMatchObject({ title: 'Idempotency-Key reused' });
  });
});
