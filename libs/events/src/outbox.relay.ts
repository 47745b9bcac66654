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
  /** Events claimed and published per transaction. Default 1,000. */
  batchSize?: number;
  /**
   * Batches kept in flight at once while there is a backlog: the next is claimed while the last
   * publishes (claims take turns; a record's events still never overtake one another). Default 2.
   */
  batchesInFlight?: number;
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

/**
 * A row of the claim's answer: a claimed event, or (`claimed` false, no payload) an unpublished
 * event of a claimed record that precedes some of the claimed ones but is not among them.
 */
type ClaimRow = PendingRow & { claimed: boolean };

/** The claimed events of one record (or one event without a record), in order. */
interface Chain {
  record: string | null;
  /** Indexes into the batch's rows. */
  rows: number[];
  /** Rows from this position on wait behind an unpublished event of the record held elsewhere. */
  heldFrom: number;
  /** The latest batch of this relay claimed before this one and still in flight with events of the record, if any. */
  after?: Batch;
}

/** A claimed batch while it is in flight: what later batches of this relay wait for. */
interface Batch {
  rows: PendingRow[];
  ids: Set<string>;
  chains: Chain[];
  /** Each record's result here: true once all its events of the batch are published (known as chains end). */
  recordPublished: Map<string, boolean>;
  /** Whether the batch's transaction committed (read once `settled` resolved). */
  committed: boolean;
  /** Resolves once the transaction committed or rolled back. */
  settled: Promise<void>;
  settle(): void;
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

/** How one claimed event fared: published, failed, or not tried (an earlier event of its record failed or is still unpublished). */
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
const SKIPPED: Outcome = { kind: 'skipped' };
const PUBLISHED: Outcome = { kind: 'published' };

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
 * Throughput: a batch's publishes are all in flight at once on the one connection (their PubAcks
 * gathered), and while there is a backlog a second batch is claimed while the first publishes
 * (`batchesInFlight`); claims take turns within the process.
 *
 * An event whose publish fails waits a growing delay before its next attempt while the relay goes
 * on with the events after it; after `maxAttempts` failures (at once when it is over the server's
 * max_payload) it is moved to the app's `dead_letters`.
 *
 * A record's events never overtake one another, by these rules:
 * - within a batch, a record's events are published one after the other, each once the stream
 *   acknowledged the one before; the first that fails leaves the rest of them unpublished;
 * - while an event of a record waits for a retry or is a dead letter, the record's later events
 *   are not claimed;
 * - a batch's event is published only when every earlier unpublished event of its record is in
 *   the same batch or in an earlier batch of this relay: the claim also returns the unpublished
 *   events of the claimed records that precede claimed ones (in the same snapshot); one held by
 *   another replica's batch (or not due) holds the record's later events of this batch back,
 *   unpublished, for a later claim; one in this relay's earlier batch in flight makes them wait
 *   until that batch committed, and they are published only if all the record's events there
 *   were published.
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
  /** The last claim was a full batch: the other loops keep batches in flight too. */
  private behind = false;
  /** Batches claimed and not yet committed or rolled back, in claim order. */
  private readonly inFlight: Batch[] = [];
  /** The turn of claims: each waits for the one before (later batches depend on earlier ones). */
  private claims: Promise<void> = Promise.resolve();

  constructor(private readonly opts: OutboxRelayOptions) {
    // Anything committed while the relay was not listening is picked up by the next batch.
    super({
      dataSource: opts.dataSource,
      channel: outboxChannel(schemaOf(opts.dataSource.options)),
      name: 'outbox relay',
      logger: opts.logger,
      loops: Math.max(1, opts.batchesInFlight ?? 2),
    });
    this.ds = opts.dataSource;
    this.js = jetstream(opts.nc);
    const schema = schemaOf(this.ds.options);
    this.table = `${quoteIdent(schema)}."outbox"`;
    this.deadLetters = `${quoteIdent(schema)}."dead_letters"`;
    this.batchSize = opts.batchSize ?? 1_000;
    this.pollMs = opts.pollMs ?? 1_000;
    this.maxBackoffMs = opts.maxBackoffMs ?? 30_000;
    this.publishTimeoutMs = opts.publishTimeoutMs ?? 5_000;
    this.retentionDays = opts.retentionDays ?? 7;
    this.cleanupEveryMs = opts.cleanupEveryMs ?? 3_600_000;
    this.maxAttempts = Math.max(1, opts.maxAttempts ?? 10);
    this.retryDelayMs = Math.max(1, opts.retryDelayMs ?? 1_000);
  }

  protected async loop(index: number): Promise<void> {
    while (!this.stopping) {
      // The first loop runs whenever there may be work; the others keep a batch of a backlog in
      // flight beside it (`behind`, set by a full claim).
      if (index > 0 && !this.behind) {
        await this.wakeup.sleep(this.pollMs, true, false);
        continue;
      }
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
      else {
        this.failures += 1;
        this.behind = false;
      }
      // A full batch that moved something: more are waiting. One whose events all had to wait
      // (held by another replica) sleeps rather than claim them again at once.
      if (
        result !== null &&
        !result.outage &&
        result.claimed === this.batchSize &&
        result.published + result.failed > 0
      )
        continue;
      if (index === 0) await this.maybeCleanup();
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
    const claimed: { batch?: Batch } = {};
    let committed = false;
    try {
      const result = await this.ds.transaction(async (manager) => {
        const batch = await this.claim(manager, traced);
        if (!batch) return { claimed: 0, published: 0, failed: 0, dead: 0, outage: false };
        claimed.batch = batch;
        const { rows } = batch;
        const ids = [...batch.ids];
        await this.opts.onClaimed?.(ids);

        const outcomes = await this.publishAll(batch, traced);
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
      committed = true;
      return result;
    } finally {
      if (claimed.batch) this.release(claimed.batch, committed);
    }
  }

  /**
   * Claims the next batch in this relay's turn of claims and registers it in flight; undefined
   * when nothing is due. Each claimed record's chain learns what it waits for: an earlier batch of
   * this relay in flight with events of the record, and where an unpublished event of the record
   * held elsewhere comes before some of its claimed ones.
   */
  private async claim(manager: EntityManager, traced: boolean): Promise<Batch | undefined> {
    const turn = this.claims;
    let done!: () => void;
    this.claims = new Promise((resolve) => (done = resolve));
    try {
      await turn;
      // The batches in flight as the claim's snapshot is taken: an event of theirs that precedes
      // a claimed one is waited for, not held elsewhere (one that ends meanwhile has committed
      // before the snapshot, or is still seen unpublished and waited for).
      const earlier = [...this.inFlight];
      // A planning cost estimate grows with the table; JIT-compiling the claim costs far more than it runs.
      await manager.query('SET LOCAL jit = off');
      const answer: ClaimRow[] = await manager.query(this.claimSql(traced), [this.batchSize]);
      const rows = answer.filter((r) => r.claimed);
      // A full batch: a backlog, so the other loops claim beside this one (from the next claim on).
      const behind = rows.length === this.batchSize;
      if (behind && !this.behind) this.wakeup.wake();
      this.behind = behind;
      if (rows.length === 0) return undefined;
      const batch = this.newBatch(rows, answer, earlier);
      this.inFlight.push(batch);
      return batch;
    } finally {
      done();
    }
  }

  /** A batch of claimed rows (in claim order) grouped into chains; `answer` also has the events held elsewhere. */
  private newBatch(rows: ClaimRow[], answer: ClaimRow[], earlier: Batch[]): Batch {
    const ids = new Set<string>();
    const chains: Chain[] = [];
    const byRecord = new Map<string, Chain>();
    rows.forEach((r, i) => {
      const id = r.id.trim();
      ids.add(id);
      const record = r.record_id?.trim() || null;
      const known = record === null ? undefined : byRecord.get(record);
      if (known) return void known.rows.push(i);
      const chain: Chain = { record, rows: [i], heldFrom: Infinity };
      if (record !== null) {
        byRecord.set(record, chain);
        chain.after = earlier.findLast((b) => b.recordPublished.has(record));
      }
      chains.push(chain);
    });
    // The answer is in (occurred_at, id) order: an event held elsewhere holds back the claimed
    // events of its record that come after it.
    const claimedSoFar = new Map<string, number>();
    for (const r of answer) {
      const record = r.record_id?.trim();
      if (!record) continue;
      if (r.claimed) {
        claimedSoFar.set(record, (claimedSoFar.get(record) ?? 0) + 1);
        continue;
      }
      const id = r.id.trim();
      if (earlier.some((b) => b.ids.has(id))) continue;
      const chain = byRecord.get(record);
      if (chain) chain.heldFrom = Math.min(chain.heldFrom, claimedSoFar.get(record) ?? 0);
    }
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    const recordPublished = new Map<string, boolean>();
    for (const chain of chains) if (chain.record !== null) recordPublished.set(chain.record, false);
    return { rows, ids, chains, recordPublished, committed: false, settled, settle };
  }

  /** The batch's transaction ended: later batches waiting for it go on. */
  private release(batch: Batch, committed: boolean): void {
    const at = this.inFlight.indexOf(batch);
    if (at >= 0) this.inFlight.splice(at, 1);
    batch.committed = committed;
    batch.settle();
  }

  /**
   * The next events due, oldest first: unpublished, not waiting for a retry, and not behind an
   * older event of their record that failed (waiting for its retry) or is a dead letter. The two
   * record checks are index probes (IDX_outbox_retrying, IDX_dead_letters_outbox_record), on sets
   * that are empty while everything publishes. Then, in the same snapshot and order, the other
   * unpublished events of the claimed records up to the last claimed one (`claimed` false: held by
   * another batch, or not due): a range of the pending index from its start to the batch's end.
   */
  private claimSql(traced: boolean): string {
    // While tracing is on, the envelope's trace context too: each publish is a span of its trace.
    const trace = traced
      ? `, o."envelope"->>'traceparent' AS "traceparent", o."envelope"->>'tracestate' AS "tracestate"`
      : '';
    const noTrace = traced ? `, NULL, NULL` : '';
    const traceColumns = traced ? `, "traceparent", "tracestate"` : '';
    return `WITH c AS MATERIALIZED (
      SELECT o."id", o."subject", o."attempts", o."record_id", o."occurred_at", o."envelope"::text AS "payload"${trace}
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
       ORDER BY o."occurred_at", o."id" LIMIT $1 FOR UPDATE OF o SKIP LOCKED)
    SELECT a."id", a."subject", a."attempts", a."record_id", a."payload"${traceColumns}, a."claimed"
      FROM (SELECT c.*, true AS "claimed" FROM c
            UNION ALL
            SELECT w."id", NULL, NULL, w."record_id", w."occurred_at", NULL${noTrace}, false
              FROM ${this.table} AS w
             WHERE w."published_at" IS NULL
               AND (w."occurred_at", w."id") < (SELECT c."occurred_at", c."id" FROM c ORDER BY 1 DESC, 2 DESC LIMIT 1)
               AND w."record_id" IN (SELECT c."record_id" FROM c)
               AND w."id" NOT IN (SELECT c."id" FROM c)) AS a
     ORDER BY a."occurred_at", a."id"`;
  }

  /**
   * Publishes a batch: every record's chain at once, all on one connection (so the first events
   * reach the stream in claim order), a record's events one after the other, each once the one
   * before is acknowledged; the rest of a record's events are left for later once one of them
   * fails, or when they wait behind an event held elsewhere or not published by an earlier batch.
   */
  private async publishAll(batch: Batch, traced: boolean): Promise<Outcome[]> {
    const { rows } = batch;
    const outcomes: Outcome[] = rows.map(() => SKIPPED);
    const runChain = async (chain: Chain): Promise<boolean> => {
      if (chain.after) {
        const before = chain.after;
        await before.settled;
        if (!before.committed || !before.recordPublished.get(chain.record!)) return false;
      }
      for (let k = 0; k < chain.rows.length; k += 1) {
        if (k >= chain.heldFrom) return false;
        const i = chain.rows[k];
        try {
          await this.publish(rows[i], traced);
          outcomes[i] = PUBLISHED;
        } catch (err) {
          outcomes[i] = { kind: 'failed', error: errorText(err), permanent: isPermanent(err) };
          return false;
        }
      }
      return true;
    };
    await Promise.all(
      batch.chains.map(async (chain) => {
        const ok = await runChain(chain);
        if (chain.record !== null) batch.recordPublished.set(chain.record, ok);
      }),
    );
    return outcomes;
  }

  /** One publish, acknowledged by the stream (a producer span of the event's trace while tracing is on). */
  private async publish(r: PendingRow, traced: boolean): Promise<void> {
    const id = r.id.trim();
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
