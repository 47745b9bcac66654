import { Client, type ClientConfig } from 'pg';
import { createTestDatabase, type TestDatabase } from '@pim/testing';
import { PgListener } from './index';

// The one LISTEN connection a process shares between its listeners, on a real Postgres.
describe('PgListener: one shared LISTEN connection per process and database', () => {
  let db: TestDatabase;
  let admin: Client;
  const config = (): ClientConfig => ({ connectionString: db.url, application_name: 'listen-test-listen' });

  beforeAll(async () => {
    db = await createTestDatabase('listen');
    admin = new Client({ connectionString: db.url });
    await admin.connect();
  });

  afterAll(async () => {
    await admin?.end();
    await db?.drop();
  });

  const backends = async (): Promise<number[]> =>
    (
      await admin.query(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'listen-test-listen'`,
      )
    ).rows.map((r: { pid: number }) => r.pid);
  const until = async <T>(what: string, probe: () => Promise<T | undefined> | T | undefined): Promise<T> => {
    for (let i = 0; i < 200; i++) {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`timed out waiting for ${what}`);
  };

  it('serves listeners of several channels over one connection, each hearing its own channel', async () => {
    const heard: Record<string, string[]> = { a: [], b: [], b2: [] };
    const events: string[] = [];
    const listener = (name: string, channel: string) =>
      new PgListener({
        config: config(),
        channel,
        retryMs: 100,
        onNotify: (payload) => heard[name].push(payload),
        onListening: () => events.push(`${name} listening`),
        onLost: () => events.push(`${name} lost`),
      });
    const a = listener('a', 'chan_a');
    const b = listener('b', 'chan_b');
    const b2 = listener('b2', 'chan_b');
    await Promise.all([a.start(), b.start(), b2.start()]);
    expect([a.listening, b.listening, b2.listening]).toEqual([true, true, true]);
    const [pid] = await until('one connection', async () => ((await backends()).length === 1 ? backends() : undefined));

    await admin.query(`NOTIFY chan_a, 'x'`);
    await admin.query(`NOTIFY chan_b, 'y'`);
    await until('the notifications', () => heard.a.length === 1 && heard.b.length === 1 && heard.b2.length === 1);
    expect(heard).toEqual({ a: ['x'], b: ['y'], b2: ['y'] });

    // Lost: every listener hears it, and hears when the connection listens again.
    events.length = 0;
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await until('every listener to hear of the loss', () => events.filter((e) => e.endsWith('lost')).length === 3);
    await until('listening again', () => a.listening && b.listening && b2.listening);
    expect(events.filter((e) => e.endsWith('lost')).sort()).toEqual(['a lost', 'b lost', 'b2 lost']);
    expect(events.filter((e) => e.endsWith('listening')).sort()).toEqual([
      'a listening',
      'b listening',
      'b2 listening',
    ]);
    const [again] = await backends();
    expect(again).not.toBe(pid);

    // A listener that stops leaves the others their connection; the last one closes it.
    await b.stop();
    expect([a.listening, b.listening, b2.listening]).toEqual([true, false, true]);
    await admin.query(`NOTIFY chan_b, 'z'`);
    await until('b2 to hear', () => heard.b2.length === 2);
    expect(heard.b).toEqual(['y']);
    await a.stop();
    await b2.stop();
    await until('the connection to close', async () => ((await backends()).length === 0 ? true : undefined));
  });

  it('a listener started after the connection is open listens at once', async () => {
    const first = new PgListener({ config: config(), channel: 'late_1', onNotify: () => undefined });
    await first.start();
    const heard: string[] = [];
    let listening = 0;
    const late = new PgListener({
      config: config(),
      channel: 'late_2',
      onNotify: (p) => heard.push(p),
      onListening: () => listening++,
    });
    await late.start();
    expect([late.listening, listening]).toEqual([true, 1]);
    expect(await backends()).toHaveLength(1);
    await admin.query(`NOTIFY late_2, 'hello'`);
    await until('the late listener to hear', () => heard.length === 1);
    await late.stop();
    await first.stop();
  });
});
