import { Client } from 'pg';
import { createTestDatabase, createTestStream } from './index';

describe('testing helpers', () => {
  it('createTestDatabase makes a fresh database that drop() removes', async () => {
    const a = await createTestDatabase('helpers');
    const b = await createTestDatabase('helpers');
    expect(a.name).not.toBe(b.name);
    const c = new Client({ connectionString: a.url });
    await c.connect();
    const tables = await c.query(
      "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog','information_schema')",
    );
    await c.end();
    expect(tables.rows[0].n).toBe(0);
    await a.drop();
    await b.drop();
    const admin = new Client({ connectionString: a.url.replace(/\/[^/]+$/, '/postgres') });
    await admin.connect();
    const left = await admin.query('SELECT count(*)::int AS n FROM pg_database WHERE datname = ANY($1)', [
      [a.name, b.name],
    ]);
    await admin.end();
    expect(left.rows[0].n).toBe(0);
  });

  it('createTestStream gives each caller its own stream and subjects, and destroy() removes it', async () => {
    const a = await createTestStream('helpers');
    const b = await createTestStream('helpers');
    expect(a.subjectPrefix).not.toBe(b.subjectPrefix);
    await a.nc.publish(`${a.subjectPrefix}pim.test.things.created`, JSON.stringify({ n: 1 }));
    await a.nc.flush();
    for (let i = 0; i < 100 && (await a.messages()).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect((await a.messages()).map((m) => m.data)).toEqual([{ n: 1 }]);
    expect(await b.messages()).toEqual([]);
    await a.destroy();
    await b.destroy();
  });
});
