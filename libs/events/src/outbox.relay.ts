import type { DataSource, EntityManager } from 'typeorm';
import { headers, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { NotifiedLoop, quoteIdent } from '@pim/db';
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
  /** Longest pause after repeated failures. Default 30 s. */
  maxBackoffMs?: number;
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
}

const CLEANUP_CHUNK = 5_000;
const ERROR_TEXT_MAX = 2_000;

function errorText(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.slice(0, ERROR_TEXT_MAX);
}

/**
 * Moves events from the app's outbox table to JetStream: claims a batch with
 * FOR UPDATE SKIP LOCKED (replicas share the work), publishes each with Nats-Msg-Id = event id
 * (a re-publish after a crash is dropped as a duplicate), then marks them published in the same
 * transaction. Wakes on NOTIFY, polls as a fallback, backs off on failure, never throws. While
 * tracing is on, each publish is a producer span continuing the trace stored in the envelope,
 * and its message carries that span's `traceparent` (and `tracestate`) as NATS headers.
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
  private lastCleanup = 0;
  private failures = 0;

  constructor(private readonly opts: OutboxRelayOptions) {
    // Anything committed while the relay was not listening is picked up by the next batch.
    super({
      dataSource: opts.dataSource,
      channel: outboxChannel(schemaOf(opts.dataSource.options)),
      name: 'outbox relay',
      listenPurpose: 'outbox-listen',
      logger: opts.logger,
    });
    this.ds = opts.dataSource;
    this.js = jetstream(opts.nc);
    const schema = schemaOf(this.ds.options);
    this.table = `${quoteIdent(schema)}."outbox"`;
    this.batchSize = opts.batchSize ?? 100;
    this.pollMs = opts.pollMs ?? 1_000;
    this.maxBackoffMs = opts.maxBackoffMs ?? 30_000;
    this.publishTimeoutMs = opts.publishTimeoutMs ?? 5_000;
    this.retentionDays = opts.retentionDays ?? 7;
    this.cleanupEveryMs = opts.cleanupEveryMs ?? 3_600_000;
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
      const progressed = result !== null && result.published > 0;
      if (result !== null && (result.failed === 0 || progressed)) this.failures = 0;
      else this.failures += 1;
      if (result !== null && result.claimed === this.batchSize && progressed) continue;
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
      // While tracing is on, the envelope's trace context too: each publish is a span of its trace.
      const rows: PendingRow[] = await manager.query(
        `SELECT "id", "subject", "envelope"::text AS "payload"${traced ? `, "envelope"->>'traceparent' AS "traceparent", "envelope"->>'tracestate' AS "tracestate"` : ''}
           FROM ${this.table}
          WHERE "published_at" IS NULL ORDER BY "occurred_at", "id" LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [this.batchSize],
      );
      if (rows.length === 0) return { claimed: 0, published: 0, failed: 0 };
      const ids = rows.map((r) => r.id.trim());
      await this.opts.onClaimed?.(ids);

      // Publishes are pipelined on one connection, so they reach the stream in claim order.
      const outcomes = await Promise.allSettled(
        rows.map((r, i) => {
          const subject = this.opts.subjectPrefix + r.subject;
          const span = traced ? this.publishSpan(r, ids[i], subject) : undefined;
          const published = this.js.publish(subject, r.payload, {
            msgID: ids[i],
            timeout: this.publishTimeoutMs,
            expect: { streamName: this.opts.stream },
            ...(span ? { headers: this.traceHeaders(span) } : {}),
          });
          if (span)
            published.then(
              () => span.end(),
              (err: unknown) => {
                failSpan(span, err);
                span.end();
              },
            );
          return published;
        }),
      );
      const published: string[] = [];
      const failed: { id: string; error: string }[] = [];
      outcomes.forEach((o, i) => {
        if (o.status === 'fulfilled') published.push(ids[i]);
        else failed.push({ id: ids[i], error: errorText(o.reason) });
      });
      if (published.length > 0) await this.opts.onPublished?.(published);

      if (published.length > 0) {
        await manager.query(`UPDATE ${this.table} SET "published_at" = now() WHERE "id" = ANY($1)`, [published]);
      }
      if (failed.length > 0) await this.recordFailures(manager, failed);
      return { claimed: rows.length, published: published.length, failed: failed.length };
    });
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

  private async recordFailures(manager: EntityManager, failed: { id: string; error: string }[]): Promise<void> {
    this.opts.logger.warn(
      { count: failed.length, first_id: failed[0].id, error: failed[0].error },
      'outbox relay could not publish events; will retry',
    );
    await manager.query(
      `UPDATE ${this.table} AS o SET "attempts" = o."attempts" + 1, "last_error" = f.error
         FROM unnest($1::text[], $2::text[]) AS f(id, error) WHERE o."id" = f.id`,
      [failed.map((f) => f.id), failed.map((f) => f.error)],
    );
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
