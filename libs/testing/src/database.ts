import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** The server tests use: TEST_DATABASE_URL, else DATABASE_URL, else the machine's local Postgres. */
export function testServerUrl(): string {
  return process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

/** A database made for one test file; drop() removes it. */
export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function admin<T>(fn: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: withDatabase(testServerUrl(), 'postgres') });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates a fresh, empty database with a unique name on the test server. */
export async function createTestDatabase(label = 'test'): Promise<TestDatabase> {
  const name = `pim_${label
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase()
    .slice(0, 20)}_${randomBytes(5).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE "${name}"`));
  return {
    name,
    url: withDatabase(testServerUrl(), name),
    drop: () =>
      admin(async (c) => {
        // Give connections that are closing a moment to go, then force out any that remain.
        for (let i = 0; i < 20; i++) {
          const r = await c.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
          if (r.rows[0].n === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      }),
  };
}
