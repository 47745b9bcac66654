import 'reflect-metadata';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { subjectFor, type EventEnvelope } from '@pim/events';
import { createLogger } from '@pim/logging';
import { createTestStream, type TestStream } from '@pim/testing';
import { webhooksTestContext, type WebhooksTestContext } from '../testing/webhooks.context';
import { loopbackPolicy, testEvent, until } from '../testing/delivery.harness';
import { WebhookMetrics } from '../metrics/metrics';
import { FanoutConsumer } from './fanout.consumer';
import { FanoutRecorder } from '../delivery/fanout.recorder';

const logger = createLogger({ service: 'test-fanout', level: 'silent' });

describe('fan-out: durable JetStream consumer → inbox + deliveries (real NATS, real Postgres)', () => {
  let ctx: WebhooksTestContext;
  let stream: TestStream;
  const consumers: FanoutConsumer[] = [];

  beforeAll(async () => {
    ctx = await webhooksTestContext({ policy: loopbackPolicy() });
  });

  afterAll(async () => {
    await ctx.close();
  });

  beforeEach(async () => {
    await ctx.reset();
    stream = await createTestStream('fanout');
  });

  afterEach(async () => {
    await Promise.all(consumers.splice(0).map((c) => c.stop()));
    await stream.destroy();
  });

  const js = () => jetstream(stream.nc);
  const publish = async (e: EventEnvelope, msgID = e.id) => {
    const [collection, action] = e.type.split('.');
    await js().publish(stream.subjectPrefix + subjectFor('', e.source, collection, action), JSON.stringify(e), {
      msgID,
    });
  };
  const startConsumer = (metrics?: WebhookMetrics, onDeliveries?: () => void) => {
    const c = new FanoutConsumer({
      nc: stream.nc,
      stream: stream.name,
      subjectPrefix: stream.subjectPrefix,
      durable: 'webhooks-fanout',
      recorder: new FanoutRecorder(ctx.ds),
      logger,
      metrics,
      onDeliveries,
      ackWaitMs: 2_000,
    });
    c.start();
    consumers.push(c);
    return c;
  };
  const count = async (table: string) =>
    Number((await ctx.ds.query(`SELECT count(*)::int AS n FROM webhooks.${table}`))[0].n);

  it('creates one delivery per enabled, live webhook with a url whose collection matches, then acks', async () => {
    const products = await ctx.newWebhook({ collection: 'products', url: 'http://127.0.0.1:9/x' });
    await ctx.newWebhook({ collection: 'orders', url: 'http://127.0.0.1:9/x', enabled: false });
    await ctx.newWebhook({ collection: 'brands' });
    await ctx.ds.query(`UPDATE webhooks.webhooks SET url = NULL WHERE collection = 'brands'`);
    const gone = await ctx.newWebhook({ collection: 'families', url: 'http://127.0.0.1:9/x' });
    await ctx.service.remove(gone.webhook._id);

    const metrics = new WebhookMetrics();
    let woken = 0;
    startConsumer(metrics, () => (woken += 1));
    const events = [
      testEvent('products', 'created'),
      testEvent('products', 'deleted'),
      testEvent('orders'),
      testEvent('brands'),
      testEvent('families'),
      testEvent('channels'),
    ];
    for (const e of events) await publish(e);
    await until(async () => (await count('inbox')) === events.length, 10_000, 'all recorded');

    const rows: { webhook_id: string; event_id: string; status: string; event_type: string }[] = await ctx.ds.query(
      'SELECT webhook_id, event_id, status, event_type FROM webhooks.deliveries ORDER BY event_type',
    );
    expect(rows).toEqual([
      { webhook_id: products.webhook._id, event_id: events[0].id, status: 'pending', event_type: 'products.created' },
      { webhook_id: products.webhook._id, event_id: events[1].id, status: 'pending', event_type: 'products.deleted' },
    ]);
    expect(woken).toBeGreaterThan(0);
    // Only events a webhook takes keep their payload; the others are recorded by id alone.
    const kept: { event_id: string; has: boolean }[] = await ctx.ds.query(
      'SELECT event_id, envelope IS NOT NULL AS has FROM webhooks.inbox',
    );
    expect(
      kept
        .filter((k) => k.has)
        .map((k) => k.event_id)
        .sort(),
    ).toEqual([events[0].id, events[1].id].sort());
    await until(
      async () =>
        (await jetstreamManager(stream.nc).then((m) => m.consumers.info(stream.name, 'webhooks-fanout')))
          .num_ack_pending === 0,
      5_000,
      'acked',
    );
    expect(await metrics.registry.getSingleMetricAsString('pim_webhooks_fanout_events_total')).toContain(
      `result="recorded"} ${events.length}`,
    );
  });

  it('records an event handed out again (or re-published under another message id) once: no second delivery', async () => {
    await ctx.newWebhook({ collection: 'products', url: 'http://127.0.0.1:9/x' });
    startConsumer();
    const e = testEvent('products');
    await publish(e);
    await until(async () => (await count('deliveries')) === 1, 10_000, 'first');
    // A relay that crashed after publishing but before marking the row publishes it again later,
    // past NATS's duplicate window: JetStream stores it twice; the inbox must absorb it.
    await publish(e, `${e.id}-again`);
    await publish(testEvent('products'));
    await until(async () => (await count('inbox')) === 2, 10_000, 'second event');
    expect(await count('deliveries')).toBe(2);
    expect(
      (await ctx.ds.query(`SELECT count(*)::int AS n FROM webhooks.deliveries WHERE event_id = $1`, [e.id]))[0].n,
    ).toBe(1);
  });

  it('shares one durable consumer between replicas: every event recorded exactly once', async () => {
    await ctx.newWebhook({ collection: 'orders', url: 'http://127.0.0.1:9/x' });
    const metricsA = new WebhookMetrics();
    const metricsB = new WebhookMetrics();
    startConsumer(metricsA);
    startConsumer(metricsB);
    const events = Array.from({ length: 300 }, () => testEvent('orders'));
    await Promise.all(events.map((e) => publish(e)));
    await until(async () => (await count('deliveries')) === 300, 15_000, 'all delivered');
    const ids: { event_id: string }[] = await ctx.ds.query('SELECT event_id FROM webhooks.deliveries');
    expect(new Set(ids.map((r) => r.event_id))).toEqual(new Set(events.map((e) => e.id)));
    const recorded = async (m: WebhookMetrics) =>
      (await m.events.get()).values.filter((v) => v.labels.result === 'recorded').reduce((s, v) => s + v.value, 0);
    expect((await recorded(metricsA)) + (await recorded(metricsB))).toBe(300);
  });

  it('survives a restart: a stopped consumer resumes where the durable left off', async () => {
    await ctx.newWebhook({ collection: 'brands', url: 'http://127.0.0.1:9/x' });
    const first = startConsumer();
    await publish(testEvent('brands'));
    await until(async () => (await count('deliveries')) === 1, 10_000, 'first');
    await first.stop();
    const later = [testEvent('brands'), testEvent('brands')];
    for (const e of later) await publish(e);
    startConsumer();
    await until(async () => (await count('deliveries')) === 3, 10_000, 'resumed');
  });

  it('drops messages that are not event envelopes instead of retrying them forever', async () => {
    await ctx.newWebhook({ collection: 'products', url: 'http://127.0.0.1:9/x' });
    startConsumer();
    await js().publish(`${stream.subjectPrefix}pim.test.products.updated`, 'not json');
    await js().publish(`${stream.subjectPrefix}pim.test.products.updated`, JSON.stringify({ id: 'nope', type: 'x' }));
    await publish(testEvent('products'));
    // A NUL inside a string is valid JSON but not valid jsonb: the event is kept without it.
    await publish(testEvent('products', 'updated', { name: 'a\u0000b' }));
    await until(async () => (await count('deliveries')) === 2, 10_000, 'good ones');
    await until(
      async () => {
        const info = await (await jetstreamManager(stream.nc)).consumers.info(stream.name, 'webhooks-fanout');
        return info.num_ack_pending === 0 && info.num_pending === 0;
      },
      5_000,
      'nothing left',
    );
    expect(await count('inbox')).toBe(2);
    const names: { name: string | null }[] = await ctx.ds.query(
      `SELECT envelope->'data'->>'name' AS name FROM webhooks.inbox ORDER BY name`,
    );
    expect(names.map((n) => n.name)).toEqual(['ab', null]);
  });
});
