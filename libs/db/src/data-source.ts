import { DataSource, type MixedList, type EntitySchema } from 'typeorm';
import { Client } from 'pg';
import { CallCommitGuard } from './idempotent-calls';
import { installJsonCompare } from './json-compare';

/** What an app tells the db lib about its persistence. */
export interface AppDataSourceOptions {
  /** Postgres connection URL (one database; each app has its own schema in it). */
  url: string;
  /** The app's schema; also the prefix of nothing else: tables live inside it. */
  schema: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: MixedList<Function | string | EntitySchema>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations: MixedList<Function | string>;
  /** Connections in the pool of this process. */
  poolSize?: number;
  /** Application name shown in pg_stat_activity. */
  applicationName?: string;
  /** How long a query waits for a connection (a free one in the pool, or a new one) before failing; default POOL_WAIT_MS. */
  poolWaitMs?: number;
}

/**
 * How long a query waits for a pool connection by default. Without a limit a request waits for
 * ever when every connection is busy or Postgres refuses new ones; with it the caller gets a 503
 * with Retry-After (the error says the database is busy) well inside the gateway's call deadline.
 */
export const POOL_WAIT_MS = 10_000;

/** Name of the migrations table inside every app's schema. */
export const MIGRATIONS_TABLE = 'migrations';

/** A TypeORM DataSource pinned to the app's schema and its own migrations table; never synchronizes. */
export function createDataSource(opts: AppDataSourceOptions): DataSource {
  installJsonCompare();
  return new DataSource({
    type: 'postgres',
    url: opts.url,
    schema: opts.schema,
    entities: opts.entities,
    subscribers: [CallCommitGuard],
    migrations: opts.migrations,
    migrationsTableName: MIGRATIONS_TABLE,
    migrationsTransactionMode: 'each',
    synchronize: false,
    migrationsRun: false,
    logging: false,
    poolSize: opts.poolSize ?? 10,
    connectTimeoutMS: opts.poolWaitMs ?? POOL_WAIT_MS,
    applicationName: opts.applicationName ?? opts.schema,
    extra: { options: `-c search_path=${quoteIdent(opts.schema)},public` },
  });
}

/** Double-quotes an SQL identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Creates the app's schema if it does not exist (before migrations, which need it for their table). */
export async function ensureSchema(url: string, schema: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
  } catch (err) {
    // Two replicas racing to create the schema: the loser sees a unique violation; the schema exists.
    if ((err as { code?: string }).code !== '23505' && (err as { code?: string }).code !== '42P06') throw err;
  } finally {
    await client.end();
  }
}

/**
 * The advisory lock every app's migrations take: one per database, not per schema, because
 * migrations also create what a database holds once (`CREATE EXTENSION IF NOT EXISTS unaccent`),
 * which two sessions running at once can both try to create (a unique violation: the first
 * start of a fresh database, with every app's migration Job started together, failed so).
 */
export const MIGRATE_LOCK = 'pim-migrate';

/**
 * Creates the schema if missing and runs pending migrations, each in its own transaction.
 * Serialized across replicas and apps with an advisory lock (MIGRATE_LOCK) so two processes never
 * migrate one database at once.
 */
export async function migrate(opts: AppDataSourceOptions): Promise<string[]> {
  await ensureSchema(opts.url, opts.schema);
  const lock = new Client({ connectionString: opts.url });
  await lock.connect();
  const key = MIGRATE_LOCK;
  try {
    await lock.query('SELECT pg_advisory_lock(hashtext($1))', [key]);
    const ds = createDataSource({ ...opts, poolSize: 2 });
    await ds.initialize();
    try {
      const done = await ds.runMigrations({ transaction: 'each' });
      return done.map((m) => m.name);
    } finally {
      await ds.destroy();
    }
  } finally {
    await lock.query('SELECT pg_advisory_unlock(hashtext($1))', [key]).catch(() => undefined);
    await lock.end();
  }
}

/**
 * The SQL that would still be needed after all migrations ran to make the database match the
 * entities. Empty means no drift; anything else means an entity changed without a migration.
 */
export async function detectDrift(opts: AppDataSourceOptions): Promise<string[]> {
  await migrate(opts);
  const ds = createDataSource({ ...opts, poolSize: 1 });
  await ds.initialize();
  try {
    const sql = await ds.driver.createSchemaBuilder().log();
    return sql.upQueries.map((q) => q.query);
  } finally {
    await ds.destroy();
  }
}
