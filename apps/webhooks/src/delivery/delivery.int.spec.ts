import 'reflect-metadata';
import { Webhook } from 'standardwebhooks';
import { runWithContext } from '@pim/logging';
import { ConflictError, NotFoundError, ValidationError } from '@pim/errors';
import { webhooksTestContext, type WebhooksTestContext } from '../testing/webhooks.context';
import { startReceiver, type TestReceiver } from '@pim/testing';
import { WorkerPool, loopbackPolicy, recordEvents, testEvent, until } from '../testing/delivery.harness';
import { DeliveryQueue, INTERRUPTED_ERROR } from './deliveries.repository';

const page = { page: 1, limit: 100, skip: 0, sort: [], filters: [], expand: [] };

describe('delivery (real Postgres, real HTTP receivers on loopback)', () => {
  let ctx: WebhooksTestContext;
  let pool: WorkerPool;
  let receiver: TestReceiver;

  beforeAll(async () => {
    ctx = await webhooksTestContext({ policy: loopbackPolicy() });
  });

  afterAll(async () => {
    await ctx.close();
  });

  beforeEach(async () => {
    await ctx.reset();
    pool = new WorkerPool(ctx.ds, ctx.secrets);
    receiver = await startReceiver();
  });

  afterEach(async () => {
    await pool.stopAll();
    await receiver.close();
  });

  const deliveriesOf = async (webhookId: string) => (await ctx.deliveries.list(webhookId, page)).data;

  it('delivers a signed Standard Webhooks request that the official library verifies, with headers and body pairs', async () => {
    const { webhook, secret } = await ctx.newWebhook({
      collection: 'products',
      url: receiver.url,
      headers: [{ key: 'X-Api-Key', value: 'k-123' }],
      body: [{ key: 'store', value: 'br-01' }],
    });
    const events = [
      testEvent('products', 'created', { code: 'A' }),
      testEvent('products', 'updated', { code: 'B' }),
      testEvent('brands'),
    ];
    expect(await recordEvents(ctx.ds, events)).toEqual({ recorded: 3, duplicates: 0, deliveries: 2 });
    await pool.start();
    await receiver.waitFor(2);
    await until(
      async () => (await deliveriesOf(webhook._id)).every((d) => d.status === 'succeeded'),
      10_000,
      'both succeeded',
    );

    const verifier = new Webhook(secret);
    const byId = new Map(events.map((e) => [e.id, e]));
    for (const req of receiver.requests) {
      const payload = verifier.verify(req.body, req.headers as Record<string, string>) as Record<string, unknown>;
      const sent = byId.get(req.headers['webhook-id'] as string)!;
      expect(payload).toEqual({
        type: sent.type,
        timestamp: sent.occurred_at,
        schema_version: 1,
        data: sent.data,
        store: 'br-01',
      });
      expect(req.headers['x-api-key']).toBe('k-123');
      expect(req.headers['content-type']).toBe('application/json');
      expect(() =>
        verifier.verify(req.body.replace('"store":"br-01"', '"store":"xx"'), req.headers as Record<string, string>),
      ).toThrow();
    }
    const list = await deliveriesOf(webhook._id);
    expect(list.map((d) => d.event_type).sort()).toEqual(['products.created', 'products.updated']);
    expect(list[0]).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      last_status_code: 200,
      last_response_body: 'ok',
    });
    expect(list[0].next_attempt_at).toBeUndefined();
    expect(list[0].completed_at).toEqual(expect.any(String));
    const text = await pool.metrics.registry.metrics();
    expect(text).toMatch(/pim_webhooks_attempts_total\{outcome="success"\} 2/);
    expect(text).toMatch(/pim_webhooks_event_to_first_attempt_seconds_count 2/);
  });

  it('a receiver that fails 3 times then succeeds gets the event on the 4th attempt with the same webhook-id; the log shows all four', async () => {
    const { webhook } = await ctx.newWebhook({ collection: 'orders', url: receiver.url });
    receiver.answer((_req, n) => (n <= 3 ? { status: 500, body: `boom ${n}` } : { status: 204 }));
    const [event] = [testEvent('orders', 'status_changed')];
    await recordEvents(ctx.ds, [event]);
    await pool.start();
    await receiver.waitFor(4);
    await until(async () => (await deliveriesOf(webhook._id))[0]?.status === 'succeeded', 10_000, 'succeeded');

    expect(new Set(receiver.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([event.id]));
    const [d] = await deliveriesOf(webhook._id);
    const detail = await ctx.deliveries.get(webhook._id, d._id);
    expect(detail.delivery).toMatchObject({
      status: 'succeeded',
      attempts: 4,
      last_status_code: 204,
      event_id: event.id,
    });
    expect(detail.attempts.map((a) => [a.number, a.outcome, a.status_code, a.response_body])).toEqual([
      [1, 'http_error', 500, 'boom 1'],
      [2, 'http_error', 500, 'boom 2'],
      [3, 'http_error', 500, 'boom 3'],
      [4, 'success', 204, ''],
    ]);
    expect(detail.attempts.every((a) => a.url === receiver.url && typeof a.duration_ms === 'number')).toBe(true);
  });

  it('gives up after the schedule, then redeliver and recover queue failed deliveries again with a fresh schedule', async () => {
    const { webhook } = await ctx.newWebhook({ collection: 'exports', url: receiver.url });
    let failing = true;
    receiver.answer(() => (failing ? { status: 502 } : { status: 200 }));
    const events = [testEvent('exports', 'failed'), testEvent('exports', 'completed')];
    await recordEvents(ctx.ds, events);
    await pool.start({ schedule: [20, 20] });
    await until(async () => (await deliveriesOf(webhook._id)).every((d) => d.status === 'failed'), 10_000, 'failed');
    const failed = await deliveriesOf(webhook._id);
    expect(failed.map((d) => d.attempts)).toEqual([3, 3]);
    expect(receiver.requests).toHaveLength(6);

    failing = false;
    const again = await ctx.deliveries.redeliver(webhook._id, failed[0]._id);
    expect(again).toMatchObject({ status: 'pending', attempts: 3 });
    await until(
      async () => (await ctx.deliveries.get(webhook._id, failed[0]._id)).delivery.status === 'succeeded',
      10_000,
      'redelivered',
    );
    expect((await ctx.deliveries.get(webhook._id, failed[0]._id)).attempts.map((a) => a.outcome)).toEqual([
      'http_error',
      'http_error',
      'http_error',
      'success',
    ]);

    // A succeeded delivery may be redelivered too; recover only touches failed ones since the date.
    expect(await ctx.deliveries.recover(webhook._id, new Date(Date.now() + 60_000).toISOString())).toBe(0);
    expect(await ctx.deliveries.recover(webhook._id, '2020-01-01T00:00:00Z')).toBe(1);
    await until(
      async () => (await deliveriesOf(webhook._id)).every((d) => d.status === 'succeeded'),
      10_000,
      'recovered',
    );
    expect(receiver.requests).toHaveLength(8);
    expect(new Set(receiver.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set(events.map((e) => e.id)));

    await expect(ctx.deliveries.recover(webhook._id, 'yesterday')).rejects.toBeInstanceOf(ValidationError);
    await expect(ctx.deliveries.redeliver(webhook._id, '6740a1b2c3d4e5f601234567')).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(ctx.deliveries.get('6740a1b2c3d4e5f601234567', failed[0]._id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('410 Gone disables the webhook (with an event) and fails the delivery; 3xx is a failure and never followed', async () => {
    const other = await startReceiver();
    try {
      const gone = await ctx.newWebhook({ collection: 'channels', url: receiver.url });
      const moved = await ctx.newWebhook({ collection: 'brands', url: `${other.url}?moved` });
      receiver.answer(() => ({ status: 410, body: 'gone' }));
      other.answer((req) =>
        req.path.includes('moved') ? { status: 302, headers: { location: other.url } } : { status: 200 },
      );
      await recordEvents(ctx.ds, [testEvent('channels'), testEvent('brands')]);
      await pool.start({
        onGone: async (id) => {
          await ctx.service.disableGone(id);
        },
        schedule: [60_000],
      });
      await until(async () => (await ctx.service.get(gone.webhook._id)).enabled === false, 10_000, 'disabled');
      const [g] = await deliveriesOf(gone.webhook._id);
      expect(g).toMatchObject({ status: 'failed', attempts: 1, last_status_code: 410 });
      const events: { type: string; envelope: { actor: unknown; data: { _id: string; enabled: boolean } } }[] =
        await ctx.ds.query(
          `SELECT type, envelope FROM webhooks.outbox WHERE type = 'webhooks.updated' ORDER BY occurred_at`,
        );
      expect(events.map((e) => [e.envelope.data._id, e.envelope.data.enabled, e.envelope.actor])).toEqual([
        [gone.webhook._id, false, null],
      ]);

      await until(
        async () =>
          (await deliveriesOf(moved.webhook._id))[0]?.attempts === 1 &&
          (await deliveriesOf(moved.webhook._id))[0]?.last_status_code === 302,
        10_000,
        '302 logged',
      );
      const [m] = await deliveriesOf(moved.webhook._id);
      expect(m).toMatchObject({ status: 'pending', last_status_code: 302 });
      expect(m.last_error).toContain('redirect (302) not followed');
      expect(other.requests.map((r) => r.path)).toEqual(['/hook?moved']);
    } finally {
      await other.close();
    }
  });

  it('honours Retry-After on 429 and 503 instead of the schedule', async () => {
    const { webhook } = await ctx.newWebhook({ collection: 'catalogs', url: receiver.url });
    receiver.answer((_r, n) =>
      n === 1
        ? { status: 429, headers: { 'retry-after': '2' } }
        : n === 2
          ? { status: 503, headers: { 'retry-after': '1' } }
          : { status: 200 },
    );
    await recordEvents(ctx.ds, [testEvent('catalogs')]);
    await pool.start({ schedule: [10, 10, 10] });
    await receiver.waitFor(3, 15_000);
    await until(async () => (await deliveriesOf(webhook._id))[0]?.status === 'succeeded', 10_000, 'succeeded');
    // The receiver asked for 2 s and then 1 s; the 10 ms schedule must not have been used.
    expect(receiver.requests[1].at - receiver.requests[0].at).toBeGreaterThanOrEqual(2_000);
    expect(receiver.requests[2].at - receiver.requests[1].at).toBeGreaterThanOrEqual(1_000);
    const detail = await ctx.deliveries.get(webhook._id, (await deliveriesOf(webhook._id))[0]._id);
    expect(detail.attempts.map((a) => [a.outcome, a.status_code])).toEqual([
      ['rate_limited', 429],
      ['rate_limited', 503],
      ['success', 200],
    ]);
  });

  it('times out a slow receiver and records why', async () => {
    const { webhook } = await ctx.newWebhook({ collection: 'families', url: receiver.url });
    receiver.answer(() => ({ status: 200, delayMs: 1_500 }));
    await recordEvents(ctx.ds, [testEvent('families')]);
    await pool.start({ timeoutMs: 300, schedule: [60_000] });
    await until(
      async () =>
        (await deliveriesOf(webhook._id))[0]?.attempts === 1 &&
        (await deliveriesOf(webhook._id))[0]?.last_error !== undefined,
      10_000,
      'timed out',
    );
    const detail = await ctx.deliveries.get(webhook._id, (await deliveriesOf(webhook._id))[0]._id);
    expect(detail.attempts[0]).toMatchObject({
      number: 1,
      outcome: 'timeout',
      error: 'no complete answer within 300 ms',
    });
    expect(detail.delivery.status).toBe('pending');
  });

  it('keeps a slow receiver to its per-webhook limit across replicas, while other webhooks go on', async () => {
    const fast = await startReceiver();
    let open = 0;
    let peak = 0;
    receiver.answer(() => {
      open += 1;
      peak = Math.max(peak, open);
      setTimeout(() => (open -= 1), 290);
      return { status: 200, delayMs: 300 };
    });
    try {
      const slow = await ctx.newWebhook({ collection: 'products', url: receiver.url });
      const quick = await ctx.newWebhook({ collection: 'orders', url: fast.url });
      await recordEvents(
        ctx.ds,
        Array.from({ length: 12 }, () => testEvent('products')),
      );
      await recordEvents(
        ctx.ds,
        Array.from({ length: 10 }, () => testEvent('orders')),
      );
      await pool.start({ perWebhookConcurrency: 2, concurrency: 8 });
      await pool.start({ perWebhookConcurrency: 2, concurrency: 8 });
      await fast.waitFor(10);
      await until(
        async () => (await deliveriesOf(quick.webhook._id)).every((d) => d.status === 'succeeded'),
        10_000,
        'fast done',
      );
      // The fast webhook finished while the slow one still had work queued: it was not starved.
      const slowStates = (await deliveriesOf(slow.webhook._id)).map((d) => d.status);
      expect(slowStates.filter((s) => s === 'pending').length).toBeGreaterThan(0);
      await receiver.waitFor(12, 20_000);
      expect(peak).toBeLessThanOrEqual(2);
      expect(peak).toBe(2);
    } finally {
      await fast.close();
    }
  });

  it('drains a backlog many times its concurrency, every delivery once', async () => {
    const a = await ctx.newWebhook({ collection: 'publications', url: receiver.url });
    const b = await ctx.newWebhook({ collection: 'import_templates', url: receiver.url });
    receiver.answer(() => ({ status: 200, delayMs: 5 }));
    const events = [
      ...Array.from({ length: 40 }, () => testEvent('publications')),
      ...Array.from({ length: 40 }, () => testEvent('import_templates')),
    ];
    await recordEvents(ctx.ds, events);
    await pool.start({ concurrency: 4, perWebhookConcurrency: 3, claimBatch: 2 });
    await receiver.waitFor(80, 20_000);
    await until(
      async () =>
        [...(await deliveriesOf(a.webhook._id)), ...(await deliveriesOf(b.webhook._id))].every(
          (d) => d.status === 'succeeded',
        ),
      10_000,
      'all recorded',
    );
    expect(new Set(receiver.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set(events.map((e) => e.id)));
    expect(receiver.requests).toHaveLength(80);
  });

  it('renews leases during a long request, so no other replica sends it again', async () => {
    const { webhook } = await ctx.newWebhook({ collection: 'workflows', url: receiver.url });
    receiver.answer(() => ({ status: 200, delayMs: 1_200 }));
    await recordEvents(ctx.ds, [testEvent('workflows'), testEvent('workflows')]);
    // The lease (300 ms) is far shorter than the request: only renewal keeps it.
    await pool.start({ leaseMs: 300, pollMs: 20 });
    await pool.start({ leaseMs: 300, pollMs: 20 });
    await until(
      async () => (await deliveriesOf(webhook._id)).every((d) => d.status === 'succeeded'),
      15_000,
      'succeeded',
    );
    await new Promise((r) => setTimeout(r, 400));
    expect(receiver.requests).toHaveLength(2);
    for (const d of await deliveriesOf(webhook._id)) {
      expect((await ctx.deliveries.get(webhook._id, d._id)).attempts.map((a) => a.outcome)).toEqual(['success']);
    }
  });

  it('takes over a delivery whose worker died mid-attempt once its lease runs out, same webhook-id, the lost attempt logged', async () => {
    const { webhook } = await ctx.newWebhook({ collection: 'imports', url: receiver.url });
    const event = testEvent('imports', 'completed');
    await recordEvents(ctx.ds, [event]);
    // A "worker" that claims and then dies: it never sends, never renews, never records.
    const deadQueue = new DeliveryQueue(ctx.ds, ctx.secrets);
    const dead = await deadQueue.claim(10, 8, 300);
    await deadQueue.close();
    expect(dead.deliveries.map((d) => d.eventId)).toEqual([event.id]);
    await pool.start({ leaseMs: 300, pollMs: 20 });
    await receiver.waitFor(1);
    await until(async () => (await deliveriesOf(webhook._id))[0]?.status === 'succeeded', 10_000, 'succeeded');
    expect(receiver.requests[0].headers['webhook-id']).toBe(event.id);
    const detail = await ctx.deliveries.get(webhook._id, dead.deliveries[0].id);
    expect(detail.attempts.map((a) => [a.number, a.outcome, a.error ?? null])).toEqual([
      [1, 'interrupted', INTERRUPTED_ERROR],
      [2, 'success', null],
    ]);
    expect(detail.delivery.attempts).toBe(2);
  });

  it('signs with both secrets during a rotation overlap', async () => {
    const { webhook, secret: old } = await ctx.newWebhook({ collection: 'attributes', url: receiver.url });
    const rotated = await ctx.service.rotateSecret(webhook._id, 1);
    expect(rotated.secret).not.toBe(old);
    expect(rotated.webhook.version).toBe(2);
    expect(rotated.previousSecretExpiresAt.getTime()).toBeGreaterThan(Date.now());
    await recordEvents(ctx.ds, [testEvent('attributes')]);
    await pool.start();
    const [req] = await receiver.waitFor(1);
    expect((req.headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
    expect(() => new Webhook(rotated.secret).verify(req.body, req.headers as Record<string, string>)).not.toThrow();
    expect(() => new Webhook(old).verify(req.body, req.headers as Record<string, string>)).not.toThrow();

    // Once the overlap is over, only the new secret signs.
    await ctx.ds.query(
      `UPDATE webhooks.webhooks SET previous_secret_expires_at = now() - interval '1 second' WHERE _id = $1`,
      [webhook._id],
    );
    await recordEvents(ctx.ds, [testEvent('attributes')]);
    const [, second] = await receiver.waitFor(2);
    expect((second.headers['webhook-signature'] as string).split(' ')).toHaveLength(1);
    expect(() => new Webhook(old).verify(second.body, second.headers as Record<string, string>)).toThrow();
  });

  it('sends a signed webhooks.test event on request, carrying the request id into the delivery log', async () => {
    const { webhook, secret } = await ctx.newWebhook({ collection: 'users_groups', url: receiver.url });
    const queued = await runWithContext({ requestId: 'req-test-42' }, () => ctx.deliveries.sendTest(webhook._id));
    expect(queued).toMatchObject({
      status: 'pending',
      event_type: 'webhooks.test',
      request_id: 'req-test-42',
      attempts: 0,
    });
    await pool.start();
    const [req] = await receiver.waitFor(1);
    const payload = new Webhook(secret).verify(req.body, req.headers as Record<string, string>) as {
      type: string;
      data: { webhook_id: string };
    };
    expect(payload.type).toBe('webhooks.test');
    expect(payload.data.webhook_id).toBe(webhook._id);
    expect(req.headers['webhook-id']).toBe(queued.event_id);

    // Events carry the request id of the API call that caused them; so does their delivery.
    await recordEvents(ctx.ds, [testEvent('users_groups', 'updated', {}, 'req-api-7')]);
    await receiver.waitFor(2);
    const list = await ctx.deliveries.list(webhook._id, {
      ...page,
      filters: [{ field: 'request_id', op: 'eq', values: ['req-api-7'] }],
    });
    expect(list.total).toBe(1);

    await ctx.service.patch(webhook._id, { enabled: false });
    await expect(ctx.deliveries.sendTest(webhook._id)).rejects.toBeInstanceOf(ConflictError);
  });

  it('cancels pending deliveries of a deleted webhook, and never delivers to a disabled one', async () => {
    const del = await ctx.newWebhook({ collection: 'categories', url: receiver.url });
    const off = await ctx.newWebhook({ collection: 'category_trees', url: receiver.url, enabled: false });
    await recordEvents(ctx.ds, [testEvent('categories'), testEvent('category_trees')]);
    await ctx.service.remove(del.webhook._id);
    const rows: { status: string }[] = await ctx.ds.query(
      'SELECT status FROM webhooks.deliveries WHERE webhook_id = $1',
      [del.webhook._id],
    );
    expect(rows.map((r) => r.status)).toEqual(['cancelled']);
    expect(
      await ctx.ds.query('SELECT 1 FROM webhooks.deliveries WHERE webhook_id = $1', [off.webhook._id]),
    ).toHaveLength(0);
    await pool.start();
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.requests).toHaveLength(0);
  });

  it('lists with filters and sort, and refuses fields it does not know', async () => {
    const { webhook } = await ctx.newWebhook({ collection: 'attribute_groups', url: receiver.url });
    // A NUL in an answer cannot go into Postgres text: it is dropped, not fatal to the log.
    receiver.answer((req) => (req.body.includes('"bad"') ? { status: 400, body: 'no\u0000pe' } : { status: 200 }));
    await recordEvents(ctx.ds, [
      testEvent('attribute_groups', 'created', { tag: 'bad' }),
      testEvent('attribute_groups', 'created'),
      testEvent('attribute_groups', 'deleted'),
    ]);
    await pool.start({ schedule: [60_000] });
    await receiver.waitFor(3);
    await until(
      async () => (await deliveriesOf(webhook._id)).every((d) => d.attempts === 1 && d.last_status_code !== undefined),
      10_000,
      'attempted',
    );
    const failedOnes = await ctx.deliveries.list(webhook._id, {
      ...page,
      filters: [{ field: 'last_status_code', op: 'eq', values: ['400'] }],
    });
    expect(failedOnes.data.map((d) => [d.status, d.last_response_body])).toEqual([['pending', 'nope']]);
    const created = await ctx.deliveries.list(webhook._id, {
      ...page,
      filters: [{ field: 'event_type', op: 'eq', values: ['attribute_groups.created'] }],
      sort: [{ field: 'created_at', direction: 'asc' }],
    });
    expect(created.total).toBe(2);
    await expect(
      ctx.deliveries.list(webhook._id, { ...page, filters: [{ field: 'lease_token', op: 'eq', values: ['x'] }] }),
    ).rejects.toBeInstanceOf(ValidationError);
  });
});
