import { randomBytes } from 'node:crypto';
import { IsNull, Not, type DataSource } from 'typeorm';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager, StorageType } from '@nats-io/jetstream';
import { createDataSource, detectDrift, migrate } from '@pim/db';
import { testNatsUrl, type TestDatabase, type TestStream } from '@pim/testing';
import { runWithContext } from '@pim/logging';
import { OutboxEvent, recordEvent, ensureStream, type EventEnvelope } from './index';
import { outboxHarness, outboxOptions, outboxRow, waitFor, type OutboxHarness } from './testing/outbox.fixtures';

describe('outbox', () => {
  let h: OutboxHarness;
  let db: TestDatabase;
  let stream: TestStream;

  beforeAll(async () => {
    h = await outboxHarness('events');
    ({ db, stream } = h);
  });
  afterAll(async () => {
    await h?.close();
  });

  const dataSource = (schema: string) => h.dataSource(schema);
  const relay = (ds: DataSource, extra: Parameters<OutboxHarness['relay']>[1] = {}) => h.relay(ds, extra);

  it('matches its migration: no drift, and the down migration removes the table', async () => {
    expect(await detectDrift(outboxOptions(db.url, 'evt'))).toEqual([]);
    // TypeORM does not compare an index's WHERE clause, so the partial index is checked here.
    const admin = createDataSource(outboxOptions(db.url, 'evt'));
    await admin.initialize();
    try {
      const rows: { indexdef: string }[] = await admin.query(
        `SELECT indexdef FROM pg_indexes WHERE schemaname = 'evt' AND indexname = 'IDX_outbox_unpublished'`,
      );
      expect(rows.map((r) => r.indexdef)).toEqual([
        expect.stringMatching(/\(occurred_at\) WHERE \(published_at IS NULL\)$/),
      ]);
    } finally {
      await admin.destroy();
    }

    await migrate(outboxOptions(db.url, 'evt_down'));
    const ds = createDataSource(outboxOptions(db.url, 'evt_down'));
    await ds.initialize();
    try {
      const typeOf = async () =>
        (
          (
            await ds.query(
              `SELECT data_type FROM information_schema.columns WHERE table_schema = 'evt_down' AND table_name = 'outbox' AND column_name = 'envelope'`,
            )
          )[0] as { data_type: string }
        ).data_type;
      expect(await typeOf()).toBe('json');
      const deadLetterTables = async () =>
        (
          (
            await ds.query(
              `SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'evt_down' AND table_name = 'dead_letters'`,
            )
          )[0] as { n: number }
        ).n;
      expect(await deadLetterTables()).toBe(1);
      await ds.undoLastMigration({ transaction: 'each' });
      expect(await deadLetterTables()).toBe(0);
      await ds.undoLastMigration({ transaction: 'each' });
      expect(await typeOf()).toBe('jsonb');
      await ds.undoLastMigration({ transaction: 'each' });
      const [{ n }] = await ds.query(
        `SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'evt_down' AND table_name = 'outbox'`,
      );
      expect(n).toBe(0);
    } finally {
      await ds.destroy();
    }
  });

  it('records nothing when the transaction rolls back', async () => {
    const ds = await dataSource('evt_rb');
    let recorded: EventEnvelope | undefined;
    await expect(
      ds.transaction(async (m) => {
        recorded = await recordEvent(m, {
          source: 'catalog',
          collection: 'products',
          action: 'created',
          data: { _id: 'p1' },
        });
        throw new Error('change failed');
      }),
    ).rejects.toThrow('change failed');
    expect(recorded?.id).toBeDefined();
    expect(await ds.getRepository(OutboxEvent).count()).toBe(0);
  });

  it('refuses to record outside a transaction', async () => {
    const ds = await dataSource('evt_notx');
    await expect(
      recordEvent(ds.manager, { source: 'catalog', collection: 'products', action: 'created', data: {} }),
    ).rejects.toThrow(/inside the transaction/);
    expect(await ds.getRepository(OutboxEvent).count()).toBe(0);
  });

  it('stores a committed event and the relay publishes it once, woken by NOTIFY, with Nats-Msg-Id = id', async () => {
    const ds = await dataSource('evt');
    // A poll interval far beyond the wait below: only the NOTIFY can make the relay publish in time.
    const r = relay(ds, { pollMs: 600_000 });
    await r.start();

    const product = { _id: 'p1', name: 'Chair', price: 12.5, tags: ['a', 'b'] };
    const envelope = await runWithContext({ requestId: 'req-42', actor: { user_id: 'u1', user_name: 'Ada' } }, () =>
      ds.transaction((m) =>
        recordEvent(m, { source: 'catalog', collection: 'products', action: 'updated', data: product }),
      ),
    );
    expect(envelope).toMatchObject({
      type: 'products.updated',
      collection: 'products',
      source: 'catalog',
      actor: { user_id: 'u1', user_name: 'Ada' },
      request_id: 'req-42',
      schema_version: 1,
      data: product,
    });

    const stored = await outboxRow(ds, envelope.id);
    expect(stored).toMatchObject({
      id: envelope.id,
      type: 'products.updated',
      subject: 'pim.catalog.products.updated',
      envelope,
      attempts: 0,
      last_error: null,
    });
    expect(stored!.occurred_at.toISOString()).toBe(envelope.occurred_at);

    const published = await waitFor(
      async () => (await outboxRow(ds, envelope.id))?.published_at,
      'the event to be marked published',
      15_000,
    );
    expect(published).toBeInstanceOf(Date);

    const messages = await stream.messages(`${stream.subjectPrefix}pim.catalog.products.>`);
    expect(messages).toEqual([
      {
        subject: `${stream.subjectPrefix}pim.catalog.products.updated`,
        data: envelope,
        msgId: envelope.id,
        seq: expect.any(Number),
      },
    ]);

    await r.stop();
    // Once stopped, nothing is published any more: the row stays pending.
    const later = await ds.transaction((m) =>
      recordEvent(m, { source: 'catalog', collection: 'products', action: 'deleted', data: product }),
    );
    await new Promise((res) => setTimeout(res, 300));
    expect((await outboxRow(ds, later.id))?.published_at).toBeNull();
    await ds.getRepository(OutboxEvent).delete({ id: later.id });
  });

  it('runs two relays at once over 200 events: each event in the stream exactly once, no event published by both', async () => {
    const ds1 = await dataSource('evt_two');
    const ds2 = await dataSource('evt_two');

    const ids: string[] = [];
    for (let tx = 0; tx < 20; tx += 1) {
      await ds1.transaction(async (m) => {
        for (let i = 0; i < 10; i += 1) {
          const e = await recordEvent(m, {
            source: 'orders',
            collection: 'orders',
            action: 'created',
            data: { n: tx * 10 + i },
          });
          ids.push(e.id);
        }
      });
    }
    const byRelay: string[][] = [[], []];
    const a = relay(ds1, { batchSize: 7, pollMs: 100, onPublished: (p) => void byRelay[0].push(...p) });
    const b = relay(ds2, { batchSize: 7, pollMs: 100, onPublished: (p) => void byRelay[1].push(...p) });
    await Promise.all([a.start(), b.start()]);

    await waitFor(
      async () => (await ds1.getRepository(OutboxEvent).countBy({ published_at: IsNull() })) === 0,
      'all 200 events to be published',
    );
    await Promise.all([a.stop(), b.stop()]);

    const overlap = byRelay[0].filter((id) => byRelay[1].includes(id));
    expect(overlap).toEqual([]);
    expect([...byRelay[0], ...byRelay[1]].sort()).toEqual([...ids].sort());

    const messages = await stream.messages(`${stream.subjectPrefix}pim.orders.orders.created`);
    expect(messages.map((m) => m.msgId).sort()).toEqual([...ids].sort());
    expect(messages.map((m) => (m.data as EventEnvelope).id).sort()).toEqual([...ids].sort());
  });

  it('keeps failed events pending with attempts and last_error, backs off without crashing, and publishes them once NATS accepts', async () => {
    const ds = await dataSource('evt_fail');
    const e = await ds.transaction((m) =>
      recordEvent(m, { source: 'catalog', collection: 'brands', action: 'created', data: { _id: 'b1' } }),
    );

    // No stream captures this prefix, so every publish is refused (no responders).
    const broken = relay(ds, {
      subjectPrefix: `nostream${randomBytes(4).toString('hex')}.`,
      pollMs: 20,
      maxBackoffMs: 100,
      publishTimeoutMs: 1_000,
      // Kept failing, never set aside: this test is about retries.
      maxAttempts: 1_000,
    });
    await broken.start();
    const failing = await waitFor(async () => {
      const row = await outboxRow(ds, e.id);
      return row && row.attempts >= 2 ? row : null;
    }, 'two failed attempts');
    expect(failing.published_at).toBeNull();
    expect(failing.last_error).toEqual(expect.any(String));
    expect(failing.last_error!.length).toBeGreaterThan(0);
    await broken.stop();

    const good = relay(ds, { pollMs: 50 });
    await good.start();
    await waitFor(
      async () => (await outboxRow(ds, e.id))?.published_at,
      'the event to be published after NATS accepts it',
    );
    await good.stop();
    const messages = await stream.messages(`${stream.subjectPrefix}pim.catalog.brands.>`);
    expect(messages.map((m) => m.msgId)).toEqual([e.id]);
  });

  it('survives losing its LISTEN connection: keeps publishing by polling and listens again', async () => {
    const ds = await dataSource('evt_listen');
    const r = relay(ds, { pollMs: 100 });
    await r.start();
    const listeners = async (): Promise<number[]> =>
      (
        await ds.query(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'evt_listen-listen'`,
        )
      ).map((x: { pid: number }) => x.pid);
    const [first] = await waitFor(async () => {
      const pids = await listeners();
      return pids.length === 1 ? pids : null;
    }, 'the LISTEN connection');
    await ds.query('SELECT pg_terminate_backend($1)', [first]);

    const e = await ds.transaction((m) =>
      recordEvent(m, { source: 'workflow', collection: 'workflows', action: 'created', data: {} }),
    );
    await waitFor(async () => (await outboxRow(ds, e.id))?.published_at, 'the event to be published without LISTEN');
    const [second] = await waitFor(async () => {
      const pids = await listeners();
      return pids.length === 1 && pids[0] !== first ? pids : null;
    }, 'a new LISTEN connection');
    expect(second).not.toBe(first);
    await r.stop();
    await waitFor(async () => (await listeners()).length === 0, 'the LISTEN connection to close on stop');
    expect((await stream.messages(`${stream.subjectPrefix}pim.workflow.>`)).map((m) => m.msgId)).toEqual([e.id]);
  });

  it('deletes published rows older than the retention and keeps recent and pending ones', async () => {
    const ds = await dataSource('evt_clean');
    const repo = ds.getRepository(OutboxEvent);
    const mk = async (publishedDaysAgo: number | null): Promise<string> => {
      const e = await ds.transaction((m) =>
        recordEvent(m, { source: 'catalog', collection: 'families', action: 'updated', data: {} }),
      );
      await ds.query(
        `UPDATE "evt_clean"."outbox" SET "published_at" = CASE WHEN $2::int IS NULL THEN NULL ELSE now() - make_interval(days => $2::int) END WHERE "id" = $1`,
        [e.id, publishedDaysAgo],
      );
      return e.id;
    };
    const old = await mk(8);
    const recent = await mk(1);
    // A relay that publishes into a prefix no stream holds keeps the pending row pending.
    const r = relay(ds, {
      subjectPrefix: `nostream${randomBytes(4).toString('hex')}.`,
      retentionDays: 7,
      pollMs: 50,
      maxBackoffMs: 100,
      publishTimeoutMs: 500,
    });
    const pending = await mk(null);
    await r.start();
    await waitFor(async () => (await repo.countBy({ id: old })) === 0, 'the old row to be deleted');
    await r.stop();
    expect((await repo.findBy({ published_at: Not(IsNull()) })).map((x) => x.id)).toEqual([recent]);
    expect((await outboxRow(ds, pending))?.published_at).toBeNull();
  });
});

describe('ensureStream', () => {
  it('creates a file-backed stream with a dedup window and max age, is idempotent, and merges subjects', async () => {
    const hex = randomBytes(5).toString('hex');
    const name = `PIM_EVENTS_T_ENSURE_${hex}`;
    const nc = await connect({ servers: testNatsUrl() });
    const jsm = await jetstreamManager(nc);
    try {
      await ensureStream(testNatsUrl(), { name, subjects: [`t${hex}.pim.>`] });
      await ensureStream(nc, { name, subjects: [`t${hex}.pim.>`] });
      const { config } = await jsm.streams.info(name);
      expect(config.storage).toBe(StorageType.File);
      expect(config.subjects).toEqual([`t${hex}.pim.>`]);
      expect(config.duplicate_window).toBeGreaterThanOrEqual(2 * 60 * 1e9);
      expect(config.max_age).toBe(7 * 24 * 3600 * 1e9);

      await ensureStream(nc, { name, subjects: [`u${hex}.pim.>`], maxAgeMs: 3_600_000 });
      const updated = (await jsm.streams.info(name)).config;
      expect([...updated.subjects].sort()).toEqual([`t${hex}.pim.>`, `u${hex}.pim.>`]);
      expect(updated.max_age).toBe(3600 * 1e9);

      await expect(ensureStream(nc, { name, subjects: [`t${hex}.pim.>`], duplicateWindowMs: 1_000 })).rejects.toThrow(
        RangeError,
      );
    } finally {
      await jsm.streams.delete(name).catch(() => undefined);
      await nc.close();
    }
  });
});
