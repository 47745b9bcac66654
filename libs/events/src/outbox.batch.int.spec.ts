import type { DataSource } from 'typeorm';
import { newId } from '@pim/ids';
import type { TestStream } from '@pim/testing';
import { recordEvent, recordEvents, type EventEnvelope, type RecordEventsInput } from './index';
import { outboxHarness, outboxRow, waitFor, type OutboxHarness } from './testing/outbox.fixtures';

// Batches of many records, a record's events spread over several batches in flight at once and
// over two relays: every event reaches the stream once, and a record's events in the order they
// were recorded — against the real Postgres and NATS.
describe('outbox relay batches', () => {
  let h: OutboxHarness;
  let stream: TestStream;

  beforeAll(async () => {
    h = await outboxHarness('outbox_batch');
    ({ stream } = h);
  });
  afterAll(async () => {
    await h?.close();
  });

  const product = (_id: string, fields: Record<string, unknown> = {}): RecordEventsInput => ({
    source: 'catalog',
    collection: 'products',
    action: 'updated',
    data: { _id, ...fields },
  });
  const record = (ds: DataSource, e: RecordEventsInput) => ds.transaction((m) => recordEvent(m, e));
  const published = async (ds: DataSource, ids: string[]) =>
    (
      (await ds.query(`SELECT count(*)::int AS n FROM outbox WHERE id = ANY($1) AND published_at IS NOT NULL`, [
        ids,
      ])) as { n: number }[]
    )[0].n === ids.length;
  /** The stream's messages of these events, as event ids in stream order. */
  const inStream = async (events: EventEnvelope[]) => {
    const ids = new Set(events.map((e) => e.id));
    return (await stream.messages()).map((m) => m.msgId!).filter((id) => ids.has(id));
  };
  /** Each record's events, as ids in the order they were recorded. */
  const byRecord = (events: EventEnvelope[]) => {
    const out = new Map<string, string[]>();
    for (const e of events) {
      const id = (e.data as { _id?: string })._id;
      if (id) out.set(id, [...(out.get(id) ?? []), e.id]);
    }
    return out;
  };

  it('publishes a backlog of many records with several events each: every event once, each record’s events in order', async () => {
    const ds = await h.dataSource('batch_order');
    const records = Array.from({ length: 40 }, () => newId());
    const recorded: EventEnvelope[] = [];
    // Bulk writes (one occurred_at each) whose events interleave the records, some without a record…
    for (let tx = 0; tx < 8; tx += 1) {
      const inputs = Array.from({ length: 30 }, (_, k): RecordEventsInput => {
        const n = tx * 30 + k;
        return k % 10 === 9
          ? { source: 'catalog', collection: 'families', action: 'updated', data: { n } }
          : product(records[(n * 7) % records.length], { n });
      });
      recorded.push(...(await ds.transaction((m) => recordEvents(m, inputs))));
    }
    // …and single writes: a record's events in consecutive transactions.
    for (let i = 0; i < 20; i += 1) recorded.push(await record(ds, product(records[i % 3], { single: i })));

    // Batches far smaller than the backlog, two in flight: a record's events span several of them.
    await h.relay(ds, { batchSize: 16, pollMs: 50 }).start();
    await waitFor(
      async () =>
        published(
          ds,
          recorded.map((e) => e.id),
        ),
      'every event to be published',
    );

    const ids = await inStream(recorded);
    expect([...ids].sort()).toEqual(recorded.map((e) => e.id).sort());
    const position = new Map(ids.map((id, i) => [id, i]));
    for (const [, events] of byRecord(recorded)) {
      expect(events.length).toBeGreaterThan(1);
      expect([...events].sort((a, b) => position.get(a)! - position.get(b)!)).toEqual(events);
    }
  });

  it('sets a record’s failing middle event aside and holds the record’s later events, in its batch and in the next, while the rest go on', async () => {
    const ds = await h.dataSource('batch_middle');
    const maxPayload = stream.nc.info!.max_payload;
    const big = { blob: 'x'.repeat(maxPayload) };
    const [a, d] = [newId(), newId()];
    const others: EventEnvelope[] = [];
    const other = async () => {
      const e = await record(ds, product(newId()));
      others.push(e);
      return e;
    };
    // With batches of 5: [a1 o o d1 a2] [d2 d3 a3 o o] [a4 d4 o …]: a2 fails with a3 in the next
    // batch (possibly in flight at the same time), d2 fails with d3 in its own batch.
    const a1 = await record(ds, product(a, { v: 1 }));
    await other();
    await other();
    const d1 = await record(ds, product(d, { v: 1 }));
    const a2 = await record(ds, product(a, { v: 2, ...big }));
    const d2 = await record(ds, product(d, { v: 2, ...big }));
    const d3 = await record(ds, product(d, { v: 3 }));
    const a3 = await record(ds, product(a, { v: 3 }));
    await other();
    await other();
    const a4 = await record(ds, product(a, { v: 4 }));
    const d4 = await record(ds, product(d, { v: 4 }));
    for (let i = 0; i < 6; i += 1) await other();

    await h.relay(ds, { batchSize: 5, pollMs: 50 }).start();
    await waitFor(
      async () =>
        published(
          ds,
          [a1, d1, ...others].map((e) => e.id),
        ),
      'the events not behind a failure to be published',
    );
    const letters = await waitFor(async () => {
      const rows: { event_id: string }[] = await ds.query(`SELECT event_id FROM dead_letters ORDER BY event_id`);
      return rows.length === 2 && rows;
    }, 'the two failing events to be set aside');
    expect(letters.map((l) => l.event_id).sort()).toEqual([a2.id, d2.id].sort());

    // The later events of both records wait behind their dead letters: never tried.
    await new Promise((r) => setTimeout(r, 300));
    for (const later of [a3, a4, d3, d4]) {
      expect(await outboxRow(ds, later.id)).toMatchObject({ published_at: null, attempts: 0, last_error: null });
    }
    const ids = await inStream([a1, a2, a3, a4, d1, d2, d3, d4, ...others]);
    expect(ids.filter((id) => [a1, a2, a3, a4].some((e) => e.id === id))).toEqual([a1.id]);
    expect(ids.filter((id) => [d1, d2, d3, d4].some((e) => e.id === id))).toEqual([d1.id]);
    expect(ids.filter((id) => others.some((e) => e.id === id)).sort()).toEqual(others.map((e) => e.id).sort());
  });

  it('holds a record’s later events while another relay holds its earlier one, then publishes them after it', async () => {
    const ds = await h.dataSource('batch_replicas');
    const ds2 = await h.dataSource('batch_replicas');
    const r = newId();
    const r1 = await record(ds, product(r, { v: 1 }));
    const others: EventEnvelope[] = [];
    for (let i = 0; i < 10; i += 1) others.push(await record(ds, product(newId())));
    const r2 = await record(ds, product(r, { v: 2 }));
    for (let i = 0; i < 10; i += 1) others.push(await record(ds, product(newId())));
    const r3 = await record(ds, product(r, { v: 3 }));

    // Replica A claims the record's first event and stops there until released.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let heldByA: string[] | undefined;
    await h
      .relay(ds, {
        batchSize: 1,
        batchesInFlight: 1,
        pollMs: 50,
        onClaimed: async (ids) => {
          if (heldByA) return;
          heldByA = ids;
          await gate;
        },
      })
      .start();
    try {
      await waitFor(async () => heldByA, 'replica A to claim the first event');
      expect(heldByA).toEqual([r1.id]);

      // Replica B claims everything else: it publishes the other records' events, not r2 nor r3.
      await h.relay(ds2, { batchSize: 50, pollMs: 50 }).start();
      await waitFor(
        async () =>
          published(
            ds,
            others.map((e) => e.id),
          ),
        'replica B to publish the other events',
      );
      for (const later of [r2, r3]) {
        expect(await outboxRow(ds, later.id)).toMatchObject({ published_at: null, attempts: 0, last_error: null });
      }
      expect(await inStream([r1, r2, r3])).toEqual([]);

      release();
      await waitFor(async () => published(ds, [r1.id, r2.id, r3.id]), 'the record’s events once A goes on');
      expect(await inStream([r1, r2, r3])).toEqual([r1.id, r2.id, r3.id]);
      expect(await inStream(others)).toHaveLength(others.length);
    } finally {
      // A failed expectation must not leave replica A waiting (the harness stops it).
      release();
    }
  });
});
