import { Client } from 'pg';

/** A table, or some of its columns, left out of the storage check, and why. */
export interface Exclusion {
  /** `schema.table` */
  table: string;
  /** Only these columns are left out; the rest of the table is still compared. */
  columns?: string[];
  reason: string;
}

/**
 * What may change while the platform refuses a request, or while no request arrives at all. Every
 * entry must name a table (and columns) that exists: a stale entry fails the discovery, so this
 * list stays the truth.
 */
export const EXCLUSIONS: readonly Exclusion[] = [
  {
    table: 'gateway.rate_limits',
    reason: 'every counted request takes rate-limit points, refused ones included',
  },
  {
    table: 'gateway.idempotency_records',
    reason: 'a POST with an Idempotency-Key keeps its answer, a 4xx too, so that a retry gets the same answer',
  },
  {
    table: 'gateway.api_keys',
    columns: ['last_used_at'],
    reason: "a key's last use is stamped (at most once a minute) whatever the answer",
  },
  ...['instance', 'queue', 'queue_stats', 'version', 'bam', 'warning'].map((t) => ({
    table: `io_jobs.${t}`,
    reason: "pg-boss's own bookkeeping (heartbeats, queue statistics, maintenance stamps), changed by its timers",
  })),
  {
    table: 'io_jobs.exports',
    columns: ['file_removed_at'],
    reason:
      "the export sweeper stamps the removal of an expired or deleted export's file on its own timer (every 5 minutes)",
  },
];

/**
 * Background work still due, which changes tables without any request: the platform has not
 * settled while one of these counts more than nothing.
 */
export const PENDING_WORK: readonly { table: string; where: string; reason: string }[] = [
  {
    table: 'io_jobs.job',
    where: `state IN ('created', 'retry', 'active') AND start_after <= now() + interval '30 seconds'`,
    reason: 'an import or an export queued or running writes its progress now and then',
  },
];

/** Per table (`schema.table`): its row count and a checksum of its rows, whatever their order. */
export type Snapshot = Record<string, { rows: number; sum: string }>;

/** A snapshot of a still platform (see `StorageProbe.settled`). */
export interface Settled {
  snapshot: Snapshot;
  stable: boolean;
  /** The database's time just before the snapshot. */
  at: string;
}

/** A difference between two snapshots. */
export interface TableChange {
  table: string;
  rowsBefore: number;
  rowsAfter: number;
}

/** The tables whose rows differ between two snapshots (a table that appeared or went away counts). */
export function changedTables(before: Snapshot, after: Snapshot): TableChange[] {
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return names
    .filter((t) => before[t]?.sum !== after[t]?.sum || before[t]?.rows !== after[t]?.rows)
    .map((t) => ({ table: t, rowsBefore: before[t]?.rows ?? -1, rowsAfter: after[t]?.rows ?? -1 }));
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Columns that say when a row was written; a row written since a time has one of them at or after it. */
const STAMPS = ['updated_at', 'created_at', 'deleted_at'] as const;
/** Columns shown beside a changed row's key, where its table has them. */
const SHOWN = [...STAMPS, 'version', 'request_id'] as const;
/**
 * How far before a batch began its written rows are looked for: a transaction stamps its rows with
 * its start (`now()`), so one open across the checksum stamps a time before the row was stored.
 */
const STAMP_MARGIN = '5 seconds';

/**
 * The query for the rows of a table written since `$1` (newest first), whole, or undefined when the
 * table has none of `STAMPS`.
 */
export function rowsSinceSql(
  schema: string,
  table: string,
  columns: readonly string[],
  limit: number,
): string | undefined {
  const stamps = STAMPS.filter((c) => columns.includes(c)).map(quote);
  if (stamps.length === 0) return undefined;
  const since = `$1::timestamptz - interval '${STAMP_MARGIN}'`;
  return (
    `SELECT to_jsonb(x) AS row FROM ${quote(schema)}.${quote(table)} x ` +
    `WHERE ${stamps.map((c) => `x.${c} >= ${since}`).join(' OR ')} ` +
    `ORDER BY greatest(${stamps.map((c) => `x.${c}`).join(', ')}) DESC LIMIT ${limit}`
  );
}

/** A row written since a time: its table, its primary key, and what says when and by whom. */
export interface ChangedRow {
  table: string;
  key: Record<string, unknown>;
  /** Its `SHOWN` columns that it has. */
  shown: Record<string, unknown>;
  /** Every `request_id` it holds, in a column or inside a JSON value (an event's envelope). */
  requestIds: string[];
}

/** The `request_id` values anywhere in a value. */
export function requestIdsIn(value: unknown): string[] {
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) =>
    k === 'request_id' && typeof v === 'string' ? [v] : requestIdsIn(v),
  );
}

/** A row of a table (as `to_jsonb` gives it) as a changed row. */
export function changedRow(table: string, row: Record<string, unknown>, keyColumns: readonly string[]): ChangedRow {
  const pick = (cols: readonly string[]) => Object.fromEntries(cols.filter((c) => c in row).map((c) => [c, row[c]]));
  return { table, key: pick(keyColumns), shown: pick(SHOWN), requestIds: [...new Set(requestIdsIn(row))] };
}

/** One line for a changed row: `table key=… updated_at=… version=… request ids …`. */
export function formatChangedRow(r: ChangedRow): string {
  const pairs = (o: Record<string, unknown>) =>
    Object.entries(o)
      .filter(([k, v]) => v !== null && k !== 'request_id')
      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  const ids = r.requestIds.length > 0 ? [`request ids ${r.requestIds.join(',')}`] : [];
  return [r.table, ...pairs(r.key), ...pairs(r.shown), ...ids].join(' ');
}

/** The query that checksums one table (its excluded columns left out of each row). */
export function checksumSql(schema: string, table: string, columns: readonly string[] = []): string {
  const row = columns.length === 0 ? 'to_jsonb(x)' : `to_jsonb(x) - ARRAY[${columns.map((c) => `'${c}'`).join(',')}]`;
  return (
    `SELECT '${schema}.${table}' AS t, count(*)::int AS n, coalesce(md5(string_agg(h, '' ORDER BY h)), '') AS s ` +
    `FROM (SELECT md5((${row})::text) AS h FROM ${quote(schema)}.${quote(table)} x) r`
  );
}

/**
 * Checksums of every table of every app schema (partitioned tables through their parent), minus
 * `EXCLUSIONS`: taken before and after a batch of refused requests, they must be equal.
 */
export class StorageProbe {
  private sql = '';
  private pendingSql = '';
  /** The tables compared (`schema.table`). */
  tables: string[] = [];
  /** Each compared table's columns. */
  private readonly columns = new Map<string, string[]>();
  /** Each compared table's primary key columns. */
  private readonly keys = new Map<string, string[]>();

  private constructor(private readonly client: Client) {}

  static async connect(databaseUrl: string, exclusions: readonly Exclusion[] = EXCLUSIONS): Promise<StorageProbe> {
    const client = new Client({ connectionString: databaseUrl, application_name: 'pim-fuzz-storage' });
    await client.connect();
    const probe = new StorageProbe(client);
    try {
      await probe.discover(exclusions);
    } catch (err) {
      await client.end();
      throw err;
    }
    return probe;
  }

  private async discover(exclusions: readonly Exclusion[]): Promise<void> {
    const { rows } = await this.client.query<{ schema: string; table: string; columns: string[] }>(
      `SELECT n.nspname AS schema, c.relname AS table, array_agg(a.attname::text) AS columns
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
        WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
          AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
        GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    const byName = new Map(rows.map((r) => [`${r.schema}.${r.table}`, r]));
    const keys = await this.client.query<{ name: string; columns: string[] }>(
      `SELECT n.nspname || '.' || c.relname AS name,
              array_agg(a.attname::text ORDER BY array_position(i.indkey::int2[], a.attnum)) AS columns
         FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
         JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = ANY(i.indkey)
        WHERE i.indisprimary GROUP BY 1`,
    );
    for (const k of keys.rows) this.keys.set(k.name, k.columns);
    for (const ex of exclusions) {
      const found = byName.get(ex.table);
      const missing = ex.columns?.filter((c) => !found?.columns.includes(c)) ?? [];
      if (!found || missing.length > 0)
        throw new Error(`storage exclusion ${ex.table} ${missing.join(',')} names nothing in the database: update it`);
    }
    const parts: string[] = [];
    for (const r of rows) {
      const name = `${r.schema}.${r.table}`;
      const ex = exclusions.find((e) => e.table === name);
      if (ex && !ex.columns) continue;
      this.tables.push(name);
      this.columns.set(name, r.columns);
      parts.push(checksumSql(r.schema, r.table, ex?.columns));
    }
    this.sql = parts.join('\nUNION ALL\n');
    const pending = PENDING_WORK.filter((w) => byName.has(w.table));
    this.pendingSql = pending
      .map((w) => {
        const [schema, table] = w.table.split('.');
        return `(SELECT count(*)::int FROM ${quote(schema)}.${quote(table)} WHERE ${w.where})`;
      })
      .join(' + ');
  }

  /** How much background work is due (see `PENDING_WORK`). */
  async pending(): Promise<number> {
    if (!this.pendingSql) return 0;
    const { rows } = await this.client.query<{ n: number }>(`SELECT ${this.pendingSql} AS n`);
    return rows[0].n;
  }

  /** Checksums of every compared table now. */
  async snapshot(): Promise<Snapshot> {
    const { rows } = await this.client.query<{ t: string; n: number; s: string }>(this.sql);
    return Object.fromEntries(rows.map((r) => [r.t, { rows: r.n, sum: r.s }]));
  }

  /**
   * A snapshot once the platform is still: two snapshots `gapMs` apart are equal and no background
   * work is due (what a write started — the outbox relay, the webhook fan-out, an export — has
   * finished). `stable` is false when it kept changing for `timeoutMs`. `at` is the database's
   * time just before the snapshot was taken: what changes after it is written since `at`.
   */
  async settled(gapMs = 400, timeoutMs = 20_000): Promise<Settled> {
    const until = Date.now() + timeoutMs;
    let last = await this.snapshot();
    for (;;) {
      await new Promise((r) => setTimeout(r, gapMs));
      const at = await this.now();
      const now = await this.snapshot();
      if (changedTables(last, now).length === 0 && (await this.pending()) === 0)
        return { snapshot: now, stable: true, at };
      if (Date.now() > until) return { snapshot: now, stable: false, at };
      last = now;
    }
  }

  /** The database's clock, to ask later which rows changed since. */
  async now(): Promise<string> {
    const { rows } = await this.client.query<{ now: string }>(`SELECT now()::text AS now`);
    return rows[0].now;
  }

  /**
   * The rows of a table written since `since` (a few seconds before, see `STAMP_MARGIN`; newest
   * first, at most `limit`), or undefined when the table has no column that says when.
   */
  async rowsSince(table: string, since: string, limit = 10): Promise<ChangedRow[] | undefined> {
    const [schema, name] = table.split('.');
    const sql = rowsSinceSql(schema, name, this.columns.get(table) ?? [], limit);
    if (!sql) return undefined;
    const { rows } = await this.client.query<{ row: Record<string, unknown> }>(sql, [since]);
    return rows.map((r) => changedRow(table, r.row, this.keys.get(table) ?? []));
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}
