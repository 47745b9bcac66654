import { randomBytes } from 'node:crypto';
import { jetstream } from '@nats-io/jetstream';
import { Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import { ConflictError, NotFoundError, UnavailableError } from '@pim/errors';
import { newId } from '@pim/ids';
import { validateListQuery } from '@pim/query';
import { deadLetterListDecl } from '@pim/resources';
import type { TestStream } from '@pim/testing';
import {
  buildEnvelope,
  DeadLetterStore,
  EventConsumer,
  OutboxMetrics,
  recordEvent,
  subjectFor,
  type EventEnvelope,
} from './index';
import { outboxHarness, outboxRow, quietLogger, waitFor, type OutboxHarness } from './testing/outbox.fixtures';

/** The first page of a schema's dead letters, newest first. */
const firstPage = validateListQuery(deadLetterListDecl, {
  page: 1,
  limit: 100,
  skip: 0,
  sort: [],
  filters: [],
  expand: [],
});

/** The value of a sample of a Prometheus text exposition (undefined when absent). */
async function sample(registry: Registry, series: string): Promise<number | undefined> {
  const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

// Events that can never go through: the relay and the consumers set them aside, the rest keeps
// flowing, and an admin re-drives them once the cause is fixed — against the real Postgres and NATS.
describe('dead letters', () => {
  let h: OutboxHarness;
  let stream: TestStream;
  const consumers: EventConsumer[] = [];

  beforeAll(async () => {
    h = await outboxHarness('dead_letters');
    ({ stream } = h);
  });
  afterAll(async () => {
    await Promise.all(consumers.map((c) => c.stop()));
    await h?.close();
  });

  const dataSource = (schema: string) => h.dataSource(schema);
  const relay = (ds: DataSource, extra: Parameters<OutboxHarness['relay']>[1] = {}) =>
    h.relay(ds, { pollMs: 50, ...extra });

  const record = (ds: DataSource, collection: string, action: string, data: Record<string, unknown>) =>
    ds.transaction((m) => recordEvent(m, { source: 'catalog', collection, action, data }));
  const published = async (ds: DataSource, ids: string[]) =>
    (
      (await ds.query(`SELECT count(*)::int AS n FROM outbox WHERE id = ANY($1) AND published_at IS NOT NULL`, [
        ids,
      ])) as { n: number }[]
    )[0].n === ids.length;
  const deadLetters = (ds: DataSource) => new DeadLetterStore({ dataSource: ds, logger: quietLogger() });
  const inStream = async (subject: string) =>
    (await stream.messages(`${stream.subjectPrefix}${subject}`)).map((m) => m.msgId);

  it('sets events over max_payload aside at once, publishes those behind them, holds their records’ later events, and re-drives them once fixed', async () => {
    const ds = await dataSource('dl_big');
    const maxPayload = stream.nc.info!.max_payload;
    const products = Array.from({ length: 5 }, () => newId());
    // Five events no NATS server of this configuration takes, at the head of the outbox…
    const bad: EventEnvelope[] = [];
    for (const _id of products)
      bad.push(await record(ds, 'products', 'updated', { _id, blob: 'x'.repeat(maxPayload) }));
    // …a later event of the first product, which must not overtake it…
    const later = await record(ds, 'products', 'updated', { _id: products[0], name: 'after' });
    // …and good events behind them, more than a batch of the relay.
    const good: EventEnvelope[] = [];
    for (let i = 0; i < 12; i += 1) good.push(await record(ds, 'brands', 'created', { _id: newId() }));

    const registry = new Registry();
    const metrics = new OutboxMetrics({ registry, dataSource: ds, logger: quietLogger() });
    await relay(ds, { batchSize: 3, metrics }).start();

    await waitFor(
      async () =>
        published(
          ds,
          good.map((e) => e.id),
        ),
      'the good events to be published',
    );
    expect(await inStream('pim.catalog.brands.>')).toEqual(good.map((e) => e.id));

    const store = deadLetters(ds);
    const { data, total } = await store.list(firstPage, deadLetterListDecl);
    expect(total).toBe(5);
    expect(data.map((d) => d.event_id).sort()).toEqual(bad.map((e) => e.id).sort());
    for (const d of data) {
      expect(d).toMatchObject({ source: 'outbox', event_type: 'products.updated', attempts: 1 });
      expect(d.last_error).toMatch(/max_payload/);
      expect(d.size_bytes).toBeGreaterThan(maxPayload);
      expect(products).toContain(d.record_id);
      expect(await outboxRow(ds, d.event_id)).toBeNull();
    }
    // The later event of the first product waits behind its dead letter: not tried, not failed.
    await new Promise((r) => setTimeout(r, 300));
    expect(await outboxRow(ds, later.id)).toMatchObject({ published_at: null, attempts: 0, last_error: null });
    expect(await inStream('pim.catalog.products.>')).toEqual([]);

    expect(await sample(registry, 'pim_dead_letters{source="outbox"}')).toBe(5);
    expect(await sample(registry, 'pim_outbox_failed_total')).toBe(5);
    expect(await sample(registry, 'pim_outbox_published_total')).toBe(12);

    // The cause fixed (the event trimmed), the first product's event is re-driven: it is published,
    // then the event that waited behind it.
    const first = data.find((d) => d.event_id === bad[0].id)!;
    await ds.query(
      `UPDATE dead_letters SET envelope = (envelope::jsonb || jsonb_build_object('data', jsonb_build_object('_id', record_id, 'blob', 'trimmed')))::json WHERE id = $1`,
      [first.id],
    );
    expect(await store.redrive(first.id)).toMatchObject({
      outcome: 'queued',
      letter: { id: first.id, event_id: bad[0].id, source: 'outbox' },
    });
    await waitFor(async () => published(ds, [bad[0].id, later.id]), 'the re-driven event and the one behind it');
    const messages = await stream.messages(`${stream.subjectPrefix}pim.catalog.products.>`);
    expect(messages.map((m) => m.msgId)).toEqual([bad[0].id, later.id]);
    expect((messages[0].data as EventEnvelope).data).toEqual({ _id: products[0], blob: 'trimmed' });

    // One not needed any more is discarded; gone is gone.
    const second = data.find((d) => d.event_id === bad[1].id)!;
    expect(await store.discard(second.id)).toMatchObject({ event_id: bad[1].id });
    await expect(store.redrive(second.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(store.discard(first.id)).rejects.toBeInstanceOf(NotFoundError);

    expect((await store.list(firstPage, deadLetterListDecl)).total).toBe(3);
    await new Promise((r) => setTimeout(r, 1_100)); // past the metrics' one-second read reuse
    expect(await sample(registry, 'pim_dead_letters{source="outbox"}')).toBe(3);
  });

  it('retries an event the stream refuses after a growing delay while those behind it go on, then sets it aside after maxAttempts', async () => {
    const ds = await dataSource('dl_refused');
    const brand = newId();
    const refused = await record(ds, 'brands', 'created', { _id: brand });
    // A subject no stream takes: every publish of it fails while the stream itself answers.
    await ds.query(`UPDATE outbox SET subject = 'refused.' || subject WHERE id = $1`, [refused.id]);
    const later = await record(ds, 'brands', 'updated', { _id: brand, name: 'renamed' });
    const good: EventEnvelope[] = [];
    for (let i = 0; i < 4; i += 1) good.push(await record(ds, 'brands', 'created', { _id: newId() }));

    await relay(ds, { maxAttempts: 3, retryDelayMs: 100, maxBackoffMs: 400, publishTimeoutMs: 1_000 }).start();
    const store = deadLetters(ds);
    await waitFor(
      async () =>
        published(
          ds,
          good.map((e) => e.id),
        ),
      'the good events to be published',
    );
    // Not yet given up on: it waits for its next attempt.
    const waiting = await outboxRow(ds, refused.id);
    expect(waiting?.published_at).toBeNull();
    expect(waiting?.next_attempt_at).toBeInstanceOf(Date);

    const [letter] = await waitFor(async () => {
      const { data } = await store.list(firstPage, deadLetterListDecl);
      return data.length > 0 && data;
    }, 'the refused event to be set aside');
    expect(letter).toMatchObject({ event_id: refused.id, source: 'outbox', attempts: 3, record_id: brand });
    expect(letter.last_error).toEqual(expect.any(String));
    expect(await outboxRow(ds, later.id)).toMatchObject({ published_at: null, attempts: 0 });

    // The cause fixed (the subject the stream takes), it is re-driven and the held event follows it.
    await ds.query(`UPDATE dead_letters SET subject = 'pim.catalog.brands.created' WHERE id = $1`, [letter.id]);
    await store.redrive(letter.id);
    await waitFor(async () => published(ds, [refused.id, later.id]), 'the re-driven event and the one behind it');
    const ids = await inStream('pim.catalog.brands.>');
    expect(ids.indexOf(refused.id)).toBeLessThan(ids.indexOf(later.id));
    expect(ids.filter((id) => id === refused.id || id === later.id)).toHaveLength(2);
  });

  it('counts nothing against the events while the stream does not answer at all', async () => {
    const ds = await dataSource('dl_outage');
    const e = await record(ds, 'brands', 'created', { _id: newId() });
    // A stream of that name does not exist: every publish fails, and so does the check of the stream.
    await relay(ds, {
      stream: `PIM_MISSING_${randomBytes(4).toString('hex')}`,
      maxAttempts: 1,
      maxBackoffMs: 100,
      publishTimeoutMs: 500,
    }).start();
    const row = await waitFor(async () => {
      const r = await outboxRow(ds, e.id);
      return r?.last_error ? r : null;
    }, 'a failed publish');
    await new Promise((r) => setTimeout(r, 500));
    expect(await outboxRow(ds, e.id)).toMatchObject({ attempts: 0, published_at: null, next_attempt_at: null });
    expect(row.last_error).toEqual(expect.any(String));
    expect((await deadLetters(ds).list(firstPage, deadLetterListDecl)).total).toBe(0);
  });

  it('keeps the event a consumer gives up on, terminates it, lets the others through, and hands it back when re-driven', async () => {
    const ds = await dataSource('dl_consumer');
    const store = deadLetters(ds);
    const poison = new Set<string>();
    const handled: string[] = [];
    const durable = `dl-${randomBytes(4).toString('hex')}`;
    const consumer = new EventConsumer({
      nc: stream.nc,
      stream: stream.name,
      durable,
      filterSubjects: [`${stream.subjectPrefix}pim.orders.>`],
      logger: quietLogger(),
      name: 'order-mirror',
      nakDelayMs: 20,
      maxDeliver: 3,
      deadLetters: store,
      handle: async (events) => {
        const bad = events.find((e) => poison.has(e.id));
        if (bad) throw new Error(`cannot mirror order ${bad.id}`);
        handled.push(...events.map((e) => e.id));
      },
    });
    consumers.push(consumer);
    const order = (data: Record<string, unknown>) =>
      buildEnvelope({
        id: newId(),
        source: 'orders',
        collection: 'orders',
        action: 'updated',
        data,
        occurredAt: new Date(),
      });
    const bad = order({ _id: newId() });
    const good = [order({ _id: newId() }), order({ _id: newId() })];
    poison.add(bad.id);
    const js = jetstream(stream.nc);
    for (const e of [bad, ...good])
      await js.publish(subjectFor(stream.subjectPrefix, 'orders', 'orders', 'updated'), JSON.stringify(e), {
        msgID: e.id,
      });
    consumer.start();

    const [letter] = await waitFor(async () => {
      const { data } = await store.list(firstPage, deadLetterListDecl);
      return data.length > 0 && data;
    }, 'the poison event to be kept');
    expect(letter).toMatchObject({
      source: 'order-mirror',
      event_id: bad.id,
      event_type: 'orders.updated',
      attempts: 3,
    });
    expect(letter.last_error).toBe(`Error: cannot mirror order ${bad.id}`);
    await waitFor(async () => good.every((e) => handled.includes(e.id)), 'the other events to be handled');

    // Still failing: the re-drive says why and the dead letter stays, one attempt more.
    const again = await store.redrive(letter.id).catch((err: unknown) => err);
    expect(again).toBeInstanceOf(ConflictError);
    expect((again as ConflictError).message).toContain(`cannot mirror order ${bad.id}`);
    expect((await store.list(firstPage, deadLetterListDecl)).data[0]).toMatchObject({ id: letter.id, attempts: 4 });

    // A replica that does not run the consumer cannot hand it the event.
    await expect(deadLetters(ds).redrive(letter.id)).rejects.toBeInstanceOf(UnavailableError);

    // Fixed: handed back to the consumer's handler now, and gone from the dead letters.
    poison.delete(bad.id);
    expect(await store.redrive(letter.id)).toMatchObject({ outcome: 'handled', letter: { event_id: bad.id } });
    expect(handled).toContain(bad.id);
    expect((await store.list(firstPage, deadLetterListDecl)).total).toBe(0);
  });

  it('keeps at once an event whose error no retry can fix (Postgres refusing its data)', async () => {
    const ds = await dataSource('dl_permanent');
    const store = deadLetters(ds);
    const durable = `dlp-${randomBytes(4).toString('hex')}`;
    let calls = 0;
    const consumer = new EventConsumer({
      nc: stream.nc,
      stream: stream.name,
      durable,
      filterSubjects: [`${stream.subjectPrefix}pim.workflow.>`],
      logger: quietLogger(),
      name: 'workflow-mirror',
      nakDelayMs: 20,
      maxDeliver: 10,
      deadLetters: store,
      handle: async () => {
        calls += 1;
        throw Object.assign(new Error('invalid input syntax for type integer: "x"'), { code: '22P02' });
      },
    });
    consumers.push(consumer);
    const e = buildEnvelope({
      id: newId(),
      source: 'workflow',
      collection: 'workflows',
      action: 'created',
      data: { _id: newId() },
      occurredAt: new Date(),
    });
    await jetstream(stream.nc).publish(
      subjectFor(stream.subjectPrefix, 'workflow', 'workflows', 'created'),
      JSON.stringify(e),
      {
        msgID: e.id,
      },
    );
    consumer.start();
    const [letter] = await waitFor(async () => {
      const { data } = await store.list(firstPage, deadLetterListDecl);
      return data.length > 0 && data;
    }, 'the event to be kept');
    expect(letter).toMatchObject({ source: 'workflow-mirror', event_id: e.id, attempts: 1 });
    await new Promise((r) => setTimeout(r, 300));
    expect(calls).toBe(1);
  });
});
