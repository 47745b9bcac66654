import { Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import type { TestStream } from '@pim/testing';
import { OUTBOX_PENDING_INDEX, OutboxMetrics, recordEvent } from './index';
import { outboxStateSql } from './outbox.metrics';
import { outboxHarness, quietLogger, waitFor, type OutboxHarness } from './testing/outbox.fixtures';

/** The value of an unlabelled metric in the registry's text (NaN when absent). */
async function value(registry: Registry, name: string): Promise<number> {
  const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.slice(name.length + 1)) : NaN;
}

async function recordOrders(ds: DataSource, n: number): Promise<void> {
  await ds.transaction(async (m) => {
    for (let i = 0; i < n; i++)
      await recordEvent(m, { source: 'orders', collection: 'orders', action: 'created', data: { n: i } });
  });
}

// The outbox gauges and counters against a real outbox table and a real JetStream stream.
describe('outbox metrics', () => {
  let h: OutboxHarness;
  let stream: TestStream;

  beforeAll(async () => {
    h = await outboxHarness('outbox_metrics');
    ({ stream } = h);
  });
  afterAll(async () => {
    await h?.close();
  });

  const dataSource = (schema: string) => h.dataSource(schema);

  it('shows the backlog and the lag of unpublished events, both 0 once the relay published them, and counts them', async () => {
    const ds = await dataSource('evm');
    const registry = new Registry();
    const metrics = new OutboxMetrics({ registry, dataSource: ds, logger: quietLogger() });
    expect(await value(registry, 'pim_outbox_backlog')).toBe(0);
    expect(await value(registry, 'pim_outbox_lag_seconds')).toBe(0);

    await recordOrders(ds, 5);
    // The oldest has waited half a minute.
    await ds.query(
      `UPDATE "evm"."outbox" SET "occurred_at" = now() - interval '30 seconds' WHERE "id" = (SELECT min("id") FROM "evm"."outbox")`,
    );
    await new Promise((r) => setTimeout(r, 1_100)); // past the reuse of the last read
    expect(await value(registry, 'pim_outbox_backlog')).toBe(5);
    expect(await value(registry, 'pim_outbox_lag_seconds')).toBeGreaterThanOrEqual(30);
    expect(await value(registry, 'pim_outbox_published_total')).toBe(0);

    const relay = h.relay(ds, {
      pollMs: 100,
      metrics,
    });
    await relay.start();
    await waitFor(async () => (await value(registry, 'pim_outbox_published_total')) === 5, 'the 5 events published');
    await waitFor(async () => (await value(registry, 'pim_outbox_backlog')) === 0, 'the backlog to be 0');
    expect(await value(registry, 'pim_outbox_lag_seconds')).toBe(0);
    expect(await value(registry, 'pim_outbox_failed_total')).toBe(0);
  });

  it('counts publishes that fail (the subject is not in the stream the relay expects), and the events stay in the backlog', async () => {
    const ds = await dataSource('evm_fail');
    const registry = new Registry();
    const metrics = new OutboxMetrics({ registry, dataSource: ds, logger: quietLogger() });
    await recordOrders(ds, 2);
    const relay = h.relay(ds, {
      stream: `${stream.name}_OTHER`,
      pollMs: 100,
      maxBackoffMs: 200,
      publishTimeoutMs: 1_000,
      metrics,
    });
    await relay.start();
    await waitFor(async () => (await value(registry, 'pim_outbox_failed_total')) >= 2, 'the failed publishes');
    await relay.stop();
    expect(await value(registry, 'pim_outbox_published_total')).toBe(0);
    await new Promise((r) => setTimeout(r, 1_100));
    expect(await value(registry, 'pim_outbox_backlog')).toBe(2);
  });

  it('counts the backlog up to its cap, and shows NaN when the outbox cannot be read', async () => {
    const ds = await dataSource('evm_cap');
    const registry = new Registry();
    new OutboxMetrics({ registry, dataSource: ds, logger: quietLogger(), backlogCap: 3 });
    await recordOrders(ds, 5);
    expect(await value(registry, 'pim_outbox_backlog')).toBe(3);

    const broken = new Registry();
    const gone = await dataSource('evm_gone');
    await gone.query(`DROP TABLE "evm_gone"."outbox"`);
    new OutboxMetrics({ registry: broken, dataSource: gone, logger: quietLogger() });
    expect(await value(broken, 'pim_outbox_backlog')).toBeNaN();
    expect(await value(broken, 'pim_outbox_lag_seconds')).toBeNaN();
  });

  it('reads only the partial index of unpublished rows', async () => {
    const ds = await dataSource('evm_plan');
    const plan: { 'QUERY PLAN': string }[] = await ds.transaction(async (m) => {
      // An empty table would be read sequentially anyway; what matters is that the index can serve both parts.
      await m.query('SET LOCAL enable_seqscan = off');
      return m.query(`EXPLAIN ${outboxStateSql('"evm_plan"."outbox"').replace('$1', '100000')}`);
    });
    const text = plan.map((r) => r['QUERY PLAN']).join('\n');
    expect(text.match(new RegExp(`Index Only Scan using "?${OUTBOX_PENDING_INDEX}"?`, 'g'))).toHaveLength(2);
  });
});
