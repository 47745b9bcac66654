import type { DataSource, EntityManager } from 'typeorm';
import { headers, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { NotifiedLoop, quoteIdent } from '@pim/db';
import { newId } from '@pim/ids';
import {
  contextFromTraceparent,
  failSpan,
  injectTraceContext,
  SpanKind,
  startSpan,
  tracingEnabled,
  type Logger,
  type Span,
} from '@pim/logging';
import { OUTBOX_SOURCE } from './dead-letter.entity';
import { errorText } from './error-text';
import type { OutboxMetrics } from './outbox.metrics';
import { outboxChannel, schemaOf } from './outbox.record';

/** How an app runs its outbox relay. */
export interface OutboxRelayOptions {
  /** The app's DataSource (OutboxEvent among its entities). */
  dataSource: DataSource;
  /** An open NATS connection; the relay never closes it. */
  nc: NatsConnection;
  /** Stream the subjects must land in; publishes are checked against it. */
  stream: string;
  /** Prepended to every stored subject: '' in production, unique per test run. */
  subjectPrefix: string;
  logger: Logger;
  /** Events claimed and published per transaction. Default 100. */
  batchSize?: number;
  /** Polling interval when no NOTIFY arrives. Default 1000 ms. */
  pollMs?: number;
  /** Longest pause after repeated failures (the relay's while NATS is away, and one event's between its attempts). Default 30 s. */
  maxBackoffMs?: number;
  /**
   * Failed publishes after which an event is set aside as a dead letter (and the later events of
   * its record wait behind it). A publish no retry can fix (over the server's max_payload) sets it
   * aside at once; failures while the stream does not answer at all are not counted. Default 10.
   */
  maxAttempts?: number;
  /** Wait before an event's second attempt; it doubles with each failure, up to maxBackoffMs. Default 1,000 ms. */
  retryDelayMs?: number;
  /** PubAck wait per message. Default 5000 ms. */
  publishTimeoutMs?: number;
  /** Published rows older than this are deleted. Default 7 days. */
  retentionDays?: number;
  /** How often the old-row cleanup runs. Default 1 hour. */
  cleanupEveryMs?: number;
  /** Counters of published and failed events (the app's OutboxMetrics). */
  metrics?: OutboxMetrics;
  /** Test hook: rows are locked, nothing is published yet. */
  onClaimed?: (ids: string[]) => Promise<void> | void;
  /** Test hook: PubAcks received, rows not yet marked published (nor committed). */
  onPublished?: (ids: string[]) => Promise<void> | void;
}

interface PendingRow {
  id: string;
  subject: string;
  payload: string;
  attempts: number;
  record_id: string | null;
  /** The envelope's trace context (read only while tracing is on). */
  traceparent?: string | null;
  tracestate?: string | null;
}

const headerSetter = { set: (h: MsgHdrs, key: string, value: string) => h.set(key, value) };

/** What one pass over the outbox did. */
interface BatchResult {
  claimed: number;
  published: number;
  failed: number;
  /** Events set aside as dead letters. */
  dead: number;
  /** Every publish failed and the stream did not answer either: NATS is away (nothing was counted against the events). */
  outage: boolean;
}

/** How one claimed event fared: published, failed, or not tried (an earlier event of its record failed). */
type Outcome = { kind: 'published' } | { kind: 'failed'; error: string; permanent: boolean } | { kind: 'skipped' };

/** A failed publish, as recorded. */
interface Failure {
  id: string;
  error: string;
  /** Failed attempts, this one included. */
  attempts: number;
  permanent: boolean;
}

const CLEANUP_CHUNK = 5_000;

/** Whether a publish can never succeed as it is: larger than the server takes (nats.js checks before sending). */
function isPermanent(err: unknown): boolean {
  return /max_payload/i.test(String((err as Error)?.message ?? err));
}

/**
 * Moves events from the app's outbox table to JetStream: claims a batch with
 * FOR UPDATE SKIP LOCKED (replicas share the work), publishes each with Nats-Msg-Id = event id
 * (a re-publish after a crash is dropped as a duplicate), then marks them published in the same
 * transaction. Wakes on NOTIFY, polls as a fallback, backs off on failure, never throws. While
 * tracing is on, each publish is a producer span continuing the trace stored in the envelope,
 * and its message carries that span's `traceparent` (and `tracestate`) as NATS headers.
 *
 * An event whose publish fails waits a growing delay before its next attempt while the relay goes
 * on with the events after it; after `maxAttempts` failures (at once when it is over the server's
 * max_payload) it is moved to the app's `dead_letters`. A record's events never overtake one
 * another: within a batch they are published one after the other, and while an event of a record
 * waits for a retry or is a dead letter, the record's later events are not claimed.
 */
export class OutboxRelay extends NotifiedLoop {
  private readonly ds: DataSource;
  private readonly js: JetStreamClient;
  private readonly table: string;
  private readonly batchSize: number;
  private readonly pollMs: number;
  private readonly maxBackoffMs: number;
  private readonly publishTimeoutMs: number;
  private readonly retentionDays: number;
  private readonly cleanupEveryMs: number;
  private readonly maxAttempts: number;
  private readonly retryDelayMs: number;
  private readonly deadLetters: string;
  private jsm: JetStreamManager | undefined;
  private lastCleanup = 0;
  private failures = 0;

  constructor(private readonly opts: OutboxRelayOptions) {
    // Anything committed while the relay was not listening is picked up by the next batch.
    super({
      dataSource: opts.dataSource,
      channel: outboxChannel(schemaOf(opts.dataSource.options)),
      name: 'outbox relay',
      logger: opts.logger,
    });
    this.ds = opts.dataSource;
    this.js = jetstream(opts.nc);
    const schema = schemaOf(this.ds.options);
    this.table = `${quoteIdent(schema)}."outbox"`;
    this.deadLetters = `${quoteIdent(schema)}."dead_letters"`;
    this.batchSize = opts.batchSize ?? 100;
    this.pollMs = opts.pollMs ?? 1_000;
    this.maxBackoffMs = opts.maxBackoffMs ?? 30_000;
    this.publishTimeoutMs = opts.publishTimeoutMs ?? 5_000;
    this.retentionDays = opts.retentionDays ?? 7;
    this.cleanupEveryMs = opts.cleanupEveryMs ?? 3_600_000;
    this.maxAttempts = Math.max(1, opts.maxAttempts ?? 10);
    this.retryDelayMs = Math.max(1, opts.retryDelayMs ?? 1_000);
  }

  protected async loop(): Promise<void> {
    while (!this.stopping) {
      let result: BatchResult | null = null;
      try {
        result = await this.runBatch();
        if (result.published > 0) this.opts.metrics?.published.inc(result.published);
        if (result.failed > 0) this.opts.metrics?.failed.inc(result.failed);
      } catch (err) {
        this.opts.logger.error({ err }, 'outbox relay batch failed');
      }
      if (this.stopping) break;
      // A failed event waits its own delay (the next batch goes past it); only an outage, or a
      // batch that could not run at all, pauses the whole relay.
      if (result !== null && !result.outage) this.failures = 0;
      else this.failures += 1;
      if (result !== null && !result.outage && result.claimed === this.batchSize) continue;
      await this.maybeCleanup();
      if (this.failures > 0) await this.wakeup.sleep(this.backoffMs(), false);
      else await this.wakeup.sleep(this.pollMs, true);
    }
  }

  private backoffMs(): number {
    // Floor of 100 ms so a tiny poll interval cannot turn a NATS outage into a hot loop.
    const base = Math.min(this.maxBackoffMs, Math.max(this.pollMs, 100) * 2 ** Math.min(this.failures, 16));
    return Math.round(base / 2 + Math.random() * (base / 2));
  }

  private async runBatch(): Promise<BatchResult> {
    this.wakeup.reset();
    const traced = tracingEnabled();
    return this.ds.transaction(async (manager) => {
      const rows: PendingRow[] = await manager.query(this.claimSql(traced), [this.batchSize]);
      if (rows.length === 0) return { claimed: 0, published: 0, failed: 0, dead: 0, outage: false };
      const ids = rows.map((r) => r.id.trim());
      await this.opts.onClaimed?.(ids);

      const outcomes = await this.publishAll(rows, ids, traced);
      const published = ids.filter((_, i) => outcomes[i].kind === 'published');
      if (published.length > 0) await this.opts.onPublished?.(published);
      if (published.length > 0) {
        await manager.query(`UPDATE ${this.table} SET "published_at" = now() WHERE "id" = ANY($1)`, [published]);
      }
      const failed: Failure[] = [];
      outcomes.forEach((o, i) => {
        if (o.kind === 'failed')
          failed.push({ id: ids[i], error: o.error, attempts: rows[i].attempts + 1, permanent: o.permanent });
      });
      if (failed.length === 0)
        return { claimed: rows.length, published: published.length, failed: 0, dead: 0, outage: false };
      // Nothing went through: the stream itself may be away, and then no event is to blame.
      const outage = published.length === 0 && failed.some((f) => !f.permanent) && !(await this.streamAnswers());
      const dead = await this.recordFailures(manager, failed, outage);
      return { claimed: rows.length, published: published.length, failed: failed.length, dead, outage };
    });
  }

  /**
   * The next events due, oldest first: unpublished, not waiting for a retry, and not behind an
   * older event of their record that failed (waiting for its retry) or is a dead letter. The two
   * record checks are index probes (IDX_outbox_retrying, IDX_dead_letters_outbox_record), on sets
   * that are empty while everything publishes.
   */
  private claimSql(traced: boolean): string {
    // While tracing is on, the envelope's trace context too: each publish is a span of its trace.
    const trace = traced
      ? `, o."envelope"->>'traceparent' AS "traceparent", o."envelope"->>'tracestate' AS "tracestate"`
      : '';
    return `SELECT o."id", o."subject", o."attempts", o."record_id", o."envelope"::text AS "payload"${trace}
      FROM ${this.table} AS o
     WHERE o."published_at" IS NULL
       AND (o."next_attempt_at" IS NULL OR o."next_attempt_at" <= now())
       AND (o."record_id" IS NULL OR (
             NOT EXISTS (SELECT 1 FROM ${this.table} AS w
                          WHERE w."record_id" = o."record_id" AND w."published_at" IS NULL
                            AND w."next_attempt_at" IS NOT NULL
                            AND (w."occurred_at", w."id") < (o."occurred_at", o."id"))
         AND NOT EXISTS (SELECT 1 FROM ${this.deadLetters} AS d
                          WHERE d."source" = '${OUTBOX_SOURCE}' AND d."record_id" = o."record_id"
                            AND (d."occurred_at", d."event_id") < (o."occurred_at", o."id"))))
     ORDER BY o."occurred_at", o."id" LIMIT $1 FOR UPDATE OF o SKIP LOCKED`;
  }

  /**
   * Publishes a batch: the events of different records pipelined on one connection (so they reach
   * the stream in claim order), those of one record one after the other, the rest of a record's
   * events left for later once one of them fails.
   */
  private async publishAll(rows: PendingRow[], ids: string[], traced: boolean): Promise<Outcome[]> {
    const outcomes: Outcome[] = rows.map(() => ({ kind: 'skipped' }));
    const chains: number[][] = [];
    const byRecord = new Map<string, number[]>();
    rows.forEach((r, i) => {
      const record = r.record_id?.trim();
      if (!record) return void chains.push([i]);
      const chain = byRecord.get(record);
      if (chain) return void chain.push(i);
      const fresh = [i];
      byRecord.set(record, fresh);
      chains.push(fresh);
    });
    await Promise.all(
      chains.map(async (chain) => {
        for (const i of chain) {
          try {
            await this.publish(rows[i], ids[i], traced);
            outcomes[i] = { kind: 'published' };
          } catch (err) {
            outcomes[i] = { kind: 'failed', error: errorText(err), permanent: isPermanent(err) };
            return;
          }
        }
      }),
    );
    return outcomes;
  }

  /** One publish, acknowledged by the stream (a producer span of the event's trace while tracing is on). */
  private async publish(r: PendingRow, id: string, traced: boolean): Promise<void> {
    const subject = this.opts.subjectPrefix + r.subject;
    const span = traced ? this.publishSpan(r, id, subject) : undefined;
    try {
      await this.js.publish(subject, r.payload, {
        msgID: id,
        timeout: this.publishTimeoutMs,
        expect: { streamName: this.opts.stream },
        ...(span ? { headers: this.traceHeaders(span) } : {}),
      });
    } catch (err) {
      if (span) failSpan(span, err);
      throw err;
    } finally {
      span?.end();
    }
  }

  /** Whether the stream answers at all (when every publish of a batch failed). */
  private async streamAnswers(): Promise<boolean> {
    try {
      this.jsm ??= await jetstreamManager(this.opts.nc, { timeout: this.publishTimeoutMs });
      await this.jsm.streams.info(this.opts.stream);
      return true;
    } catch {
      return false;
    }
  }

  /** The producer span of one publish: a child of the context the event was recorded in. */
  private publishSpan(row: PendingRow, id: string, subject: string): Span {
    return startSpan(`publish ${row.subject}`, {
      kind: SpanKind.PRODUCER,
      parent: contextFromTraceparent(row.traceparent, row.tracestate ?? undefined),
      attributes: {
        'messaging.system': 'nats',
        'messaging.operation.type': 'send',
        'messaging.destination.name': subject,
        'messaging.message.id': id,
      },
    });
  }

  /** NATS headers carrying the producer span's trace context to every consumer. */
  private traceHeaders(span: Span): MsgHdrs {
    const h = headers();
    injectTraceContext(h, headerSetter, span);
    return h;
  }

  /**
   * Records failed publishes: during an outage only the error (nothing counts against the events);
   * otherwise each failure counts, the event waits its growing delay, and an event at its last
   * attempt (or that can never be published) moves to the dead letters. Returns how many moved.
   */
  private async recordFailures(manager: EntityManager, failed: Failure[], outage: boolean): Promise<number> {
    const counted = outage ? failed.filter((f) => f.permanent) : failed;
    if (outage) {
      this.opts.logger.warn(
        { count: failed.length, first_id: failed[0].id, error: failed[0].error },
        'outbox relay could not reach the events stream; will retry',
      );
      const waiting = failed.filter((f) => !f.permanent);
      await manager.query(
        `UPDATE ${this.table} AS o SET "last_error" = f.error
           FROM unnest($1::text[], $2::text[]) AS f(id, error) WHERE o."id" = f.id`,
        [waiting.map((f) => f.id), waiting.map((f) => f.error)],
      );
    }
    const dead = counted.filter((f) => f.permanent || f.attempts >= this.maxAttempts);
    const retry = counted.filter((f) => !dead.includes(f));
    if (retry.length > 0) {
      this.opts.logger.warn(
        { count: retry.length, first_id: retry[0].id, error: retry[0].error, attempts: retry[0].attempts },
        'outbox relay could not publish events; will retry them after a delay',
      );
      await manager.query(
        `UPDATE ${this.table} AS o
            SET "attempts" = f.attempts, "last_error" = f.error,
                "next_attempt_at" = now() + f.delay_ms * interval '1 millisecond'
           FROM unnest($1::text[], $2::text[], $3::int[], $4::int[]) AS f(id, error, attempts, delay_ms)
          WHERE o."id" = f.id`,
        [
          retry.map((f) => f.id),
          retry.map((f) => f.error),
          retry.map((f) => f.attempts),
          retry.map((f) => this.retryDelay(f.attempts)),
        ],
      );
    }
    if (dead.length > 0) await this.setAside(manager, dead);
    return dead.length;
  }

  /** Moves events from the outbox to the dead letters (the later events of their records wait behind them). */
  private async setAside(manager: EntityManager, dead: Failure[]): Promise<void> {
    this.opts.logger.error(
      {
        count: dead.length,
        event_ids: dead.slice(0, 20).map((f) => f.id),
        error: dead[0].error,
        attempts: dead[0].attempts,
      },
      'outbox relay set events aside as dead letters; later events of their records wait until they are re-driven or discarded',
    );
    await manager.query(
      `WITH f AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[]) AS f(id, dead_id, error, attempts)),
            d AS (DELETE FROM ${this.table} AS o USING f WHERE o."id" = f.id
                  RETURNING o."id", o."type", o."subject", o."record_id", o."envelope", o."occurred_at",
                            f.dead_id, f.error, f.attempts)
       INSERT INTO ${this.deadLetters}
              ("id", "source", "event_id", "event_type", "subject", "record_id", "envelope", "occurred_at", "attempts", "last_error")
       SELECT d.dead_id, '${OUTBOX_SOURCE}', d."id", d."type", d."subject", d."record_id", d."envelope", d."occurred_at", d.attempts, d.error
         FROM d
       ON CONFLICT ("source", "event_id") DO UPDATE
          SET "envelope" = EXCLUDED."envelope", "attempts" = EXCLUDED."attempts",
              "last_error" = EXCLUDED."last_error", "updated_at" = now()`,
      [dead.map((f) => f.id), dead.map(() => newId()), dead.map((f) => f.error), dead.map((f) => f.attempts)],
    );
  }

  /** The wait after an event's `attempts`-th failure: retryDelayMs doubled each time, up to maxBackoffMs, half of it jittered. */
  private retryDelay(attempts: number): number {
    const base = Math.min(this.maxBackoffMs, this.retryDelayMs * 2 ** Math.min(attempts - 1, 20));
    return Math.round(base / 2 + Math.random() * (base / 2));
  }

  private async maybeCleanup(): Promise<void> {
    if (Date.now() - this.lastCleanup < this.cleanupEveryMs) return;
    this.lastCleanup = Date.now();
    try {
      let deleted = 0;
      for (;;) {
        const [{ n }] = await this.ds.query(
          `WITH d AS (
             DELETE FROM ${this.table} WHERE "id" IN (
               SELECT "id" FROM ${this.table}
                WHERE "published_at" < now() - make_interval(days => $1::int)
                LIMIT $2 FOR UPDATE SKIP LOCKED)
             RETURNING 1)
           SELECT count(*)::int AS n FROM d`,
          [this.retentionDays, CLEANUP_CHUNK],
        );
        deleted += n as number;
        if (n < CLEANUP_CHUNK || this.stopping) break;
      }
      if (deleted > 0) this.opts.logger.info({ deleted }, 'outbox relay removed old published events');
    } catch (err) {
      this.opts.logger.warn({ err }, 'outbox cleanup failed; will retry later');
    }
  }
}
