import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { toPimError, UnavailableError } from '@pim/errors';
import { createTestDatabase, type TestDatabase } from '@pim/testing';
import { createDataSource } from './index';

// A database that cannot take more work must answer 503 with Retry-After, not 500, and not hang:
// Postgres refusing a connection, and the pool giving none in time, both against a real server.
describe('a database that cannot take the request now', () => {
  let db: TestDatabase;
  let admin: Client;
  const role = `pim_limited_${randomBytes(4).toString('hex')}`;
  const open: DataSource[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('store-unavailable');
    admin = new Client({ connectionString: db.url });
    await admin.connect();
    // Superusers ignore connection limits: a role of its own, allowed one connection.
    await admin.query(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT 1`);
  });

  afterAll(async () => {
    await Promise.all(open.map((ds) => ds.destroy().catch(() => undefined)));
    await admin.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
    await admin.end();
    await db.drop();
  });

  async function dataSource(user: string | undefined, poolSize: number, poolWaitMs?: number): Promise<DataSource> {
    const url = new URL(db.url);
    if (user) url.username = user;
    const ds = createDataSource({
      url: url.toString(),
      schema: 'public',
      entities: [],
      migrations: [],
      poolSize,
      poolWaitMs,
    });
    await ds.initialize();
    open.push(ds);
    return ds;
  }

  async function failure(work: Promise<unknown>): Promise<unknown> {
    try {
      await work;
    } catch (err) {
      return err;
    }
    throw new Error('the query succeeded');
  }

  it('Postgres refusing a new connection (too many connections) is a 503 with Retry-After', async () => {
    const ds = await dataSource(role, 2);
    const held = ds.createQueryRunner();
    await held.connect();
    await held.query('SELECT 1');
    try {
      // The pool has room for a second connection; Postgres refuses it (SQLSTATE 53300).
      const err = await failure(ds.query('SELECT 1'));
      expect((err as { code?: string }).code).toBe('53300');
      const pim = toPimError(err);
      expect(pim).toBeInstanceOf(UnavailableError);
      expect(pim.toObject()).toMatchObject({ code: 503, kind: 'unavailable', title: 'Database busy or unreachable' });
      expect(pim.retryAfter).toBeGreaterThan(0);
    } finally {
      await held.release();
    }
    // Once the connection is back the same pool serves again.
    await expect(ds.query('SELECT 1 AS one')).resolves.toEqual([{ one: 1 }]);
  });

  it('a pool with every connection busy gives up after its wait and says 503, instead of hanging', async () => {
    const ds = await dataSource(undefined, 1, 300);
    const held = ds.createQueryRunner();
    await held.connect();
    await held.query('SELECT 1');
    try {
      const err = await failure(ds.query('SELECT 1'));
      expect(String((err as Error).message)).toMatch(/timeout exceeded when trying to connect/);
      expect(toPimError(err)).toBeInstanceOf(UnavailableError);
    } finally {
      await held.release();
    }
    await expect(ds.query('SELECT 1 AS one')).resolves.toEqual([{ one: 1 }]);
  });

  it('a backend terminated under a query (server restarting) is a 503, a query error stays a 500', async () => {
    const ds = await dataSource(undefined, 1);
    const [{ pid }] = (await ds.query('SELECT pg_backend_pid() AS pid')) as { pid: number }[];
    const slow = failure(ds.query('SELECT pg_sleep(5)'));
    await new Promise((r) => setTimeout(r, 200));
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    const killed = await slow;
    expect((killed as { code?: string }).code).toBe('57P01');
    expect(toPimError(killed)).toBeInstanceOf(UnavailableError);

    // The pool drops the dead connection once its socket closes (a query racing that close fails
    // with "Connection terminated", also a 503); then it connects again.
    await new Promise((r) => setTimeout(r, 200));
    await expect(ds.query('SELECT 1 AS one')).resolves.toEqual([{ one: 1 }]);
    const bad = await failure(ds.query('SELECT * FROM no_such_table'));
    expect(toPimError(bad).toObject().code).toBe(500);
  });
});
