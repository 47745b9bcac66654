import { randomUUID } from 'node:crypto';
import type { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import { runWithCallMark, runWithContext, type CallMark } from '@pim/logging';
import { createTestDatabase, type TestDatabase } from '@pim/testing';
import {
  CallAlreadyWritten,
  CallerGone,
  createDataSource,
  IDEMPOTENT_CALLS_DOWN_SQL,
  IDEMPOTENT_CALLS_UP_SQL,
  IdempotentCallStore,
  migrate,
} from './index';

class Ledger1700000000000 implements MigrationInterface {
  name = 'Ledger1700000000000';
  async up(q: QueryRunner): Promise<void> {
    for (const sql of IDEMPOTENT_CALLS_UP_SQL) await q.query(sql);
    await q.query(`CREATE TABLE "notes" ("text" text NOT NULL)`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "notes"`);
    for (const sql of IDEMPOTENT_CALLS_DOWN_SQL) await q.query(sql);
  }
}

// The recorder on a real Postgres: what a transaction of a call with an idempotency token commits
// beside its writes, and how a second run of the call is stopped at its commit.
describe('idempotent calls: the token recorded inside the write transaction', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let bare: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('idem');
    const opts = { url: db.url, schema: 'app', entities: [], migrations: [Ledger1700000000000] };
    await migrate(opts);
    ds = createDataSource(opts);
    await ds.initialize();
    // A schema without the ledger (the gateway's): the recorder does nothing there.
    bare = createDataSource({ url: db.url, schema: 'bare', entities: [], migrations: [] });
    await bare.initialize();
    await bare.query('CREATE SCHEMA bare; CREATE TABLE bare.notes ("text" text NOT NULL)');
  });

  afterAll(async () => {
    await ds?.destroy();
    await bare?.destroy();
    await db?.drop();
  });

  const token = () => randomUUID().replace(/-/g, '').repeat(2);
  const markOf = (t: string): CallMark => ({ token: t, attempt: randomUUID(), wrote: false, answered: false });
  const write = (on: DataSource, mark: CallMark | undefined, text: string) => {
    const run = () => on.transaction((m) => m.query('INSERT INTO notes (text) VALUES ($1)', [text]));
    return mark ? runWithCallMark(mark, run) : run();
  };
  const notes = async (on: DataSource, text: string) =>
    Number(((await on.query('SELECT count(*) AS n FROM notes WHERE text = $1', [text])) as { n: string }[])[0].n);
  const ledger = async (t: string) =>
    (await ds.query('SELECT attempt, answer FROM idempotent_calls WHERE token = $1', [t])) as {
      attempt: string;
      answer: Buffer | null;
    }[];

  it('records the token with the write; the same run may commit again; another run is rolled back', async () => {
    const t = token();
    const first = markOf(t);
    await write(ds, first, 'one');
    await write(ds, first, 'one again');
    expect(first.wrote).toBe(true);
    expect(await ledger(t)).toEqual([{ attempt: first.attempt, answer: null }]);

    const second = markOf(t);
    await expect(write(ds, second, 'two')).rejects.toBeInstanceOf(CallAlreadyWritten);
    expect(second.wrote).toBe(false);
    expect(await notes(ds, 'two')).toBe(0);
    expect([await notes(ds, 'one'), await notes(ds, 'one again')]).toEqual([1, 1]);
  });

  it('keeps the answer of the run that wrote only, and finds it', async () => {
    const store = new IdempotentCallStore(ds);
    const t = token();
    const mark = markOf(t);
    await write(ds, mark, 'kept');
    await store.keep(t, randomUUID(), Buffer.from('not mine'));
    expect(await store.find(t)).toEqual({ answer: null });
    await store.keep(t, mark.attempt, Buffer.from('answer'));
    expect(await store.find(t)).toEqual({ answer: Buffer.from('answer') });
    expect(await store.find(token())).toBeUndefined();
  });

  it('records nothing once the call is answered, without a mark, or where there is no ledger', async () => {
    const late = { ...markOf(token()), answered: true };
    await write(ds, late, 'late');
    expect(await ledger(late.token)).toEqual([]);
    await write(ds, undefined, 'unmarked');
    expect(await notes(ds, 'unmarked')).toBe(1);
    const elsewhere = markOf(token());
    await write(bare, elsewhere, 'bare');
    expect([elsewhere.wrote, await notes(bare, 'bare')]).toEqual([false, 1]);
  });

  it('purges records past the retention', async () => {
    const old = token();
    await write(ds, markOf(old), 'old');
    await ds.query(`UPDATE idempotent_calls SET created_at = now() - interval '8 days' WHERE token = $1`, [old]);
    expect(await new IdempotentCallStore(ds).purgeExpired()).toBe(1);
    expect(await ledger(old)).toEqual([]);
  });

  it('rolls back a transaction whose call ran past its deadline: its caller was already answered', async () => {
    const inTime = runWithContext({ requestId: 'r-in-time', deadline: new Date(Date.now() + 60_000) }, () =>
      write(ds, undefined, 'in time'),
    );
    await inTime;
    expect(await notes(ds, 'in time')).toBe(1);
    const late = runWithContext({ requestId: 'r-late', deadline: new Date(Date.now() + 50) }, () =>
      ds.transaction(async (m) => {
        await m.query('INSERT INTO notes (text) VALUES ($1)', ['too late']);
        await m.query('SELECT pg_sleep(0.1)');
      }),
    );
    await expect(late).rejects.toBeInstanceOf(CallerGone);
    expect(await notes(ds, 'too late')).toBe(0);
  });
});
