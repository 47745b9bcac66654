import { Counter, Gauge, type Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import { quoteIdent } from '@pim/db';
import type { Logger } from '@pim/logging';
import { OUTBOX_SOURCE } from './dead-letter.entity';
import { schemaOf } from './outbox.record';

/** What an app's outbox metrics need. */
export interface OutboxMetricsOptions {
  registry: Registry;
  /** The app's DataSource (OutboxEvent among its entities). */
  dataSource: DataSource;
  logger: Logger;
  /** The backlog is counted up to this many rows (a bounded scan of the partial index). Default 100,000. */
  backlogCap?: number;
  /** A scrape waits this long for the outbox query; then the gauges show NaN. Default 2,000 ms. */
  timeoutMs?: number;
}

interface OutboxState {
  backlog: number;
  lag: number;
  /** Dead letters by source (counted up to the cap in all); undefined when they could not be read. */
  deadLetters?: Map<string, number>;
}

/**
 * The backlog (up to $1 rows) and the age in seconds of the oldest unpublished event of an outbox
 * table. Both subqueries carry the partial index's predicate, so they read only unpublished rows.
 */
export function outboxStateSql(table: string): string {
  return `SELECT (SELECT count(*)::int FROM (SELECT 1 FROM ${table} WHERE "published_at" IS NULL LIMIT $1) AS b) AS "backlog",
    EXTRACT(EPOCH FROM clock_timestamp() - (SELECT min("occurred_at") FROM ${table} WHERE "published_at" IS NULL))::float8 AS "lag"`;
}

/** Dead letters by source, counted up to $1 rows in all. */
export function deadLetterCountsSql(table: string): string {
  return `SELECT "source", count(*)::int AS "n" FROM (SELECT "source" FROM ${table} LIMIT $1) AS d GROUP BY "source"`;
}

/** One read serves the gauges of one scrape (and of scrapes within this long). */
const READ_REUSE_MS = 1_000;

/**
 * An app's outbox on its Prometheus registry: `pim_outbox_backlog` (unpublished events, counted
 * up to the cap) and `pim_outbox_lag_seconds` (age of the oldest unpublished event), read at
 * scrape time from the partial index of unpublished rows (`IDX_outbox_unpublished`: an index-only
 * count bounded by the cap, and one index probe for the oldest); and the relay's
 * `pim_outbox_published_total` and `pim_outbox_failed_total` (publish attempts refused or timed
 * out; the event stays and is tried again), and `pim_dead_letters{source}` (events set aside after
 * every try failed, by source: `outbox` or a consumer's name; read at scrape time, counted up to
 * the cap). A read that fails or takes too long shows NaN.
 */
export class OutboxMetrics {
  readonly published: Counter;
  readonly failed: Counter;
  private readonly table: string;
  private readonly deadLetterTable: string;
  /** Sources seen with dead letters: they show 0 once emptied rather than vanishing. */
  private readonly sources = new Set<string>([OUTBOX_SOURCE]);
  private readonly cap: number;
  private readonly timeoutMs: number;
  private last: { at: number; state: Promise<OutboxState> } | undefined;

  constructor(private readonly opts: OutboxMetricsOptions) {
    const schema = quoteIdent(schemaOf(opts.dataSource.options));
    this.table = `${schema}."outbox"`;
    this.deadLetterTable = `${schema}."dead_letters"`;
    this.cap = opts.backlogCap ?? 100_000;
    this.timeoutMs = opts.timeoutMs ?? 2_000;
    const registers = [opts.registry];
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    new Gauge({
      name: 'pim_outbox_backlog',
      help: `Events in the outbox not yet published to JetStream (counted up to ${this.cap})`,
      registers,
      async collect() {
        this.set((await self.state()).backlog);
      },
    });
    new Gauge({
      name: 'pim_outbox_lag_seconds',
      help: 'Age of the oldest event not yet published (0 when none waits)',
      registers,
      async collect() {
        this.set((await self.state()).lag);
      },
    });
    new Gauge({
      name: 'pim_dead_letters',
      help: `Events set aside after every try failed, by source: outbox (could not be published) or the consumer that gave up (counted up to ${this.cap})`,
      labelNames: ['source'],
      registers,
      async collect() {
        const counts = (await self.state()).deadLetters;
        for (const source of counts?.keys() ?? []) self.sources.add(source);
        this.reset();
        for (const source of self.sources) this.set({ source }, counts ? (counts.get(source) ?? 0) : NaN);
      },
    });
    this.published = new Counter({
      name: 'pim_outbox_published_total',
      help: 'Events the outbox relay published to JetStream',
      registers,
    });
    this.failed = new Counter({
      name: 'pim_outbox_failed_total',
      help: 'Publishes of outbox events that failed (the event is tried again)',
      registers,
    });
  }

  /** The backlog and lag, read now (or by a read less than a second old). */
  state(): Promise<OutboxState> {
    const now = Date.now();
    if (this.last && now - this.last.at < READ_REUSE_MS) return this.last.state;
    const state = this.read().catch((err: unknown) => {
      this.opts.logger.warn({ err }, 'could not read the outbox backlog for metrics');
      return { backlog: NaN, lag: NaN, deadLetters: undefined };
    });
    this.last = { at: now, state };
    return state;
  }

  private async read(): Promise<OutboxState> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the outbox query took over ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    try {
      const [rows, dead] = (await Promise.race([
        Promise.all([
          this.opts.dataSource.query(outboxStateSql(this.table), [this.cap]),
          this.opts.dataSource.query(deadLetterCountsSql(this.deadLetterTable), [this.cap]),
        ]),
        timeout,
      ])) as [{ backlog: number; lag: number | null }[], { source: string; n: number }[]];
      return {
        backlog: rows[0].backlog,
        lag: Math.max(0, rows[0].lag ?? 0),
        deadLetters: new Map(dead.map((d) => [d.source, d.n])),
      };
    } finally {
      clearTimeout(timer);
    }
  }
}
