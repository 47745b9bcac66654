import { jetstreamManager } from '@nats-io/jetstream';
import { startReceiver, type TestReceiver } from '@pim/testing';
import { eventually, startE2E, type E2E } from './platform';

type Json = Record<string, unknown>;

/** The orders events a receiver got: the event id (`webhook-id`), type and comments of each. */
function ordersEvents(receiver: TestReceiver): { id: string; type: string; order: string; comments: number }[] {
  return receiver.requests.map((r) => {
    const body = JSON.parse(r.body) as { type: string; data: { _id: string; order_comments?: unknown[] } };
    return {
      id: String(r.headers['webhook-id']),
      type: body.type,
      order: body.data._id,
      comments: body.data.order_comments?.length ?? 0,
    };
  });
}

// An event the event stream refuses is set aside as a dead letter while everything else flows on;
// an admin lists it and, once the cause is fixed, re-drives it over HTTP, and the events of its
// record that waited behind it follow it, in order.
describe('dead letters through the whole platform', () => {
  let e2e: E2E;
  let receiver: TestReceiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    e2e = await startE2E('e2edeadletters', {
      WEBHOOKS_ALLOWED_TARGETS: '127.0.0.0/8,::1/128',
      // Set aside after two failed publishes, half a second apart at most.
      OUTBOX_MAX_ATTEMPTS: '2',
      OUTBOX_MAX_BACKOFF_MS: '500',
    });
    const hook = await e2e.api('PUT', '/api/v1/webhooks', { collection: 'orders', url: receiver.url });
    expect(hook.status).toBe(200);
    const flow = await e2e.api('POST', '/api/v1/workflows', {
      code: 'simple',
      name: 'Simple',
      enabled: true,
      steps: [{ name: 'Only', code: 'only', status: [{ code: 'new', name: 'New' }] }],
    });
    expect(flow.status).toBe(201);
  }, 300_000);

  afterAll(async () => {
    await e2e?.close();
    await receiver?.close();
  });

  /** Caps (or uncaps, with -1) the size of a message the events stream takes. */
  const capStream = async (maxMsgSize: number) => {
    const jsm = await jetstreamManager(e2e.stream.nc);
    const { config } = await jsm.streams.info(e2e.stream.name);
    await jsm.streams.update(e2e.stream.name, { ...config, max_msg_size: maxMsgSize });
  };
  const order = async (code: string) => {
    const r = await e2e.api('POST', '/api/v1/orders', {
      code,
      external_code: `web-${code}`,
      channel: { code: 'web' },
      customer: { email: 'ana@example.com' },
      items_count: 1,
      sla: 120,
    });
    expect(r).toMatchObject({ status: 201 });
    return r.json._id as string;
  };
  const comment = async (id: string, text: string) =>
    expect((await e2e.api('POST', `/api/v1/orders/${id}/comments`, { text })).status).toBe(200);
  const deadLetters = async (query = '') => (await e2e.api('GET', `/api/v1/dead-letters${query}`)).json;
  const waitForDead = async (query: string) => {
    let page: Json = {};
    await eventually(async () => {
      page = await deadLetters(query);
      return (page.total as number) > 0;
    }, 30_000);
    return page;
  };

  it('lists an event the stream refuses, keeps the rest flowing, and re-drives it with the events held behind it', async () => {
    const a = await order('DL-A');
    await eventually(async () => ordersEvents(receiver).some((e) => e.order === a && e.type === 'orders.created'));

    // The stream now refuses messages over 8 KiB: the order's next event carries a 9,000-character comment.
    await capStream(8192);
    await comment(a, 'x'.repeat(9_000));
    const page = await waitForDead('?app=orders');
    expect(page).toMatchObject({ total: 1, page: 1, filters: { app: 'orders' } });
    const [letter] = page.data as Json[];
    expect(letter).toMatchObject({
      app: 'orders',
      source: 'outbox',
      event_type: 'orders.updated',
      record_id: a,
      attempts: 2,
    });
    expect(letter.last_error).toMatch(/size|maximum/i);
    expect(letter.size_bytes as number).toBeGreaterThan(8192);

    // A later event of the same order waits behind it; another order's events go on.
    await comment(a, 'after');
    const b = await order('DL-B');
    await eventually(async () => ordersEvents(receiver).some((e) => e.order === b && e.type === 'orders.created'));
    expect(ordersEvents(receiver).filter((e) => e.order === a && e.type === 'orders.updated')).toEqual([]);

    // Every app's dead letters at once, admin keys only.
    const all = await deadLetters();
    expect((all.data as Json[]).map((d) => d._id)).toContain(letter._id);
    const reader = await e2e.newKey(['orders:read']);
    const refused = await e2e.api('GET', '/api/v1/dead-letters', undefined, { authorization: `Bearer ${reader}` });
    expect(refused.status).toBe(403);
    const missing = await e2e.api('POST', '/api/v1/dead-letters/6740a1b2c3d4e5f601234567/redrive');
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ code: 404, kind: 'not_found', name: 'NotFoundError' });
    expect(missing.json.solution).toContain('GET /api/v1/dead-letters');
    const badApp = await e2e.api('GET', '/api/v1/dead-letters?app=gateway');
    expect(badApp.status).toBe(400);

    // The cause fixed, the re-drive publishes it, then the event held behind it.
    await capStream(-1);
    const redriven = await e2e.api('POST', `/api/v1/dead-letters/${letter._id as string}/redrive`);
    expect(redriven.status).toBe(200);
    expect(redriven.json).toEqual({
      _id: letter._id,
      app: 'orders',
      source: 'outbox',
      event_id: letter.event_id,
      event_type: 'orders.updated',
      outcome: 'queued',
    });
    await eventually(
      async () => ordersEvents(receiver).filter((e) => e.order === a && e.type === 'orders.updated').length === 2,
      30_000,
    );
    const updates = ordersEvents(receiver).filter((e) => e.order === a && e.type === 'orders.updated');
    expect(updates.map((u) => u.comments).sort()).toEqual([1, 2]);
    expect(updates.map((u) => u.id)).toContain(letter.event_id);
    // On the stream (what every consumer reads), the re-driven event comes before the one held behind it.
    const held = updates.find((u) => u.id !== letter.event_id)!;
    const onStream = (await e2e.stream.messages(`${e2e.stream.subjectPrefix}pim.orders.orders.updated`)).map(
      (m) => m.msgId,
    );
    expect(onStream.indexOf(letter.event_id as string)).toBeLessThan(onStream.indexOf(held.id));
    expect((await deadLetters('?app=orders')).total).toBe(0);
    // Gone once re-driven.
    expect((await e2e.api('POST', `/api/v1/dead-letters/${letter._id as string}/redrive`)).status).toBe(404);
  }, 180_000);

  it('discards a dead letter for good', async () => {
    const c = await order('DL-C');
    await eventually(async () => ordersEvents(receiver).some((e) => e.order === c && e.type === 'orders.created'));
    await capStream(8192);
    await comment(c, 'y'.repeat(9_000));
    const [letter] = (await waitForDead('?app=orders&event_type=orders.updated')).data as Json[];
    await capStream(-1);
    expect(letter).toMatchObject({ record_id: c });

    const discarded = await e2e.api('DELETE', `/api/v1/dead-letters/${letter._id as string}`);
    expect(discarded.status).toBe(204);
    expect((await deadLetters('?app=orders')).total).toBe(0);
    expect((await e2e.api('DELETE', `/api/v1/dead-letters/${letter._id as string}`)).status).toBe(404);
    // The order's next event is not held by a discarded one.
    await comment(c, 'after the discard');
    await eventually(async () =>
      ordersEvents(receiver).some((e) => e.order === c && e.type === 'orders.updated' && e.comments === 2),
    );
    expect(ordersEvents(receiver).filter((e) => e.order === c && e.type === 'orders.updated')).toHaveLength(1);
  }, 180_000);
});
