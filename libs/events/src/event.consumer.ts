import { nanos, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  type ConsumerConfig,
  type ConsumerMessages,
  type JsMsg,
} from '@nats-io/jetstream';
import type { Registry } from 'prom-client';
import {
  contextFromTraceparent,
  extractTraceContext,
  failSpan,
  SpanKind,
  startSpan,
  traceContextOf,
  tracingEnabled,
  withSpan,
  type Context,
  type Logger,
  type Span,
} from '@pim/logging';
import { ConsumerLagMetrics } from './consumer.metrics';
import type { DeadLetterSink } from './dead-letter.store';
import { isEnvelope, type EventEnvelope } from './event.envelope';
import { coveringFilter, subjectMatches } from './subject.filter';

/** Where a new durable consumer starts in the stream (only used when it is created). */
export type EventDeliverPolicy =
  typeof DeliverPolicy.All | typeof DeliverPolicy.New | typeof DeliverPolicy.Last | typeof DeliverPolicy.LastPerSubject;

/** How an app consumes events from the stream. */
export interface EventConsumerOptions {
  /** An open NATS connection; the consumer never closes it. */
  nc: NatsConnection;
  stream: string;
  /** Durable consumer name, shared by every replica (they share its messages). */
  durable: string;
  /**
   * Full subjects, prefix included: `${prefix}pim.>`, `${prefix}pim.catalog.products.updated`...
   * A server older than 2.10 takes one filter: the consumer then gets a filter covering them all.
   * Whatever the server hands out that none of them matches is acknowledged, unhandled.
   */
  filterSubjects: string[];
  logger: Logger;
  /** Words for the logs: 'fan-out', 'auto-republish'. */
  name: string;
  /**
   * Handles a batch of events (once per batch, then once per event when the batch fails). The
   * messages are acknowledged only after it resolves; it must tolerate an event handed out again.
   * While tracing is on, each event's `traceparent` is its consumer span's (keep it with what the
   * event causes), and a batch of one event runs inside that span.
   */
  handle(events: EventEnvelope[]): Promise<void>;
  /** Errors no retry can fix: the event is given up on at once. Default: Postgres data errors (SQLSTATE class 22). */
  isPermanent?(err: unknown): boolean;
  /** Deliveries after which an event that still fails is given up on. Default: retried for as long as it takes. */
  maxDeliver?: number;
  /**
   * Where an event given up on is kept before it is terminated, under the consumer's `name` as its
   * source (the app's dead letters, which an admin lists and re-drives: `handle` is registered to
   * take it again). While it cannot be kept, the event is handed out again later instead. Without
   * it, such an event is dropped with an error log.
   */
  deadLetters?: DeadLetterSink;
  /** Events handed to `handle` at once. Default 200. */
  batchSize?: number;
  /** How long JetStream waits for an ack before handing a message out again. Default 30 s. */
  ackWaitMs?: number;
  /** Messages handed out and not yet acknowledged, over all replicas. Default 5,000. */
  maxAckPending?: number;
  /** Where a newly created durable starts. Default: everything the stream still holds. */
  deliverPolicy?: EventDeliverPolicy;
  /** First redelivery delay of a failed event; grows with each delivery. Default 2 s. */
  nakDelayMs?: number;
  /** Longest redelivery delay. Default 30 s. */
  maxNakDelayMs?: number;
  /** The app's Prometheus registry: the consumer's lag is shown on it while it runs (`pim_nats_consumer_*{durable}`). */
  metrics?: Registry;
}

const CONSUMER_NOT_FOUND = 10014;
const RETRY_MS = 1_000;
const MAX_RETRY_MS = 15_000;
const PULL_MAX_MESSAGES = 1_000;

const headerGetter = {
  get: (h: MsgHdrs, key: string) => (h.has(key) ? h.get(key) : undefined),
  keys: (h: MsgHdrs) => h.keys(),
};

/** Whether Postgres refused the data itself (SQLSTATE class 22), which no retry can fix. */
export function isPostgresDataError(err: unknown): boolean {
  const e = err as { code?: unknown; driverError?: { code?: unknown } };
  const code =
    typeof e?.code === 'string' ? e.code : typeof e?.driverError?.code === 'string' ? e.driverError.code : '';
  return code.startsWith('22');
}

// Multiple filter subjects on one consumer came with nats-server 2.10.
function takesManyFilters(nc: NatsConnection): boolean {
  const [major, minor] = (nc.info?.version ?? '0.0.0').split('.').map((n) => Number.parseInt(n, 10));
  return major > 2 || (major === 2 && minor >= 10);
}

/**
 * A durable JetStream pull consumer shared by every replica: messages are buffered as they
 * arrive and handed to `handle` in batches, then acknowledged. A crash before the ack means
 * JetStream hands the events out again, so handlers must be idempotent (an inbox table...).
 * A message that is not an event envelope is dropped; a failed batch is retried one event at a
 * time; a failed event is handed out again later, unless its error is permanent or it reached
 * `maxDeliver`: then it is kept in the app's dead letters (`deadLetters`) and terminated. The loop
 * survives NATS going away and the consumer being deleted.
 */
export class EventConsumer {
  private readonly buffer: JsMsg[] = [];
  private messages: ConsumerMessages | null = null;
  private running: Promise<void> | null = null;
  private draining: Promise<void> | null = null;
  private stopping = false;
  private wakeRetry: (() => void) | null = null;
  private unwatch: (() => void) | null = null;
  private readonly batchSize: number;
  private readonly filters: string[];
  private readonly isPermanent: (err: unknown) => boolean;
  private readonly nakDelayMs: number;
  private readonly maxNakDelayMs: number;

  constructor(private readonly opts: EventConsumerOptions) {
    this.filters = [...new Set(opts.filterSubjects)];
    if (this.filters.length === 0) throw new TypeError('EventConsumer needs at least one filter subject');
    if (opts.maxDeliver !== undefined && !(Number.isInteger(opts.maxDeliver) && opts.maxDeliver >= 1))
      throw new RangeError('maxDeliver must be a positive integer');
    this.batchSize = Math.max(1, opts.batchSize ?? 200);
    this.isPermanent = opts.isPermanent ?? isPostgresDataError;
    this.nakDelayMs = opts.nakDelayMs ?? 2_000;
    this.maxNakDelayMs = opts.maxNakDelayMs ?? 30_000;
    opts.deadLetters?.handleWith(opts.name, (events) => opts.handle(events));
  }

  /** Starts consuming in the background (creating the durable consumer when missing, retrying while NATS is away). */
  start(): void {
    if (this.running) return;
    this.stopping = false;
    if (this.opts.metrics) {
      const { nc, stream, durable, logger } = this.opts;
      this.unwatch = ConsumerLagMetrics.on(this.opts.metrics).watch({ nc, stream, durable, logger });
    }
    this.running = this.loop().catch((err) =>
      this.opts.logger.error({ err, durable: this.opts.durable }, `${this.opts.name} loop ended unexpectedly`),
    );
  }

  /** Stops pulling, handles (and acknowledges) what was already received, and returns. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.stopping = true;
    this.unwatch?.();
    this.unwatch = null;
    this.messages?.stop();
    this.wakeRetry?.();
    await this.running;
    this.running = null;
    while (this.draining) await this.draining;
  }

  /** Creates the durable consumer if it does not exist (any replica may; the same config is idempotent). */
  async ensureConsumer(): Promise<void> {
    const jsm = await jetstreamManager(this.opts.nc);
    const filter = this.serverFilter();
    try {
      const { config } = await jsm.consumers.info(this.opts.stream, this.opts.durable);
      const has = config.filter_subjects?.length ? config.filter_subjects : [config.filter_subject ?? ''];
      const wants = filter.filter_subjects ?? [filter.filter_subject ?? ''];
      if ([...has].sort().join(' ') !== [...wants].sort().join(' '))
        this.opts.logger.warn(
          { durable: this.opts.durable, has, wants: this.filters },
          `the ${this.opts.name} consumer exists with other filter subjects; delete it to change them`,
        );
      return;
    } catch (err) {
      if (
        (err as { code?: unknown })?.code !== CONSUMER_NOT_FOUND &&
        !/consumer not found/i.test(String((err as Error)?.message))
      )
        throw err;
    }
    await jsm.consumers.add(this.opts.stream, {
      durable_name: this.opts.durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: this.opts.deliverPolicy ?? DeliverPolicy.All,
      ack_wait: nanos(this.opts.ackWaitMs ?? 30_000),
      max_ack_pending: this.opts.maxAckPending ?? 5_000,
      ...filter,
    });
    this.opts.logger.info(
      {
        stream: this.opts.stream,
        durable: this.opts.durable,
        filter: filter.filter_subjects ?? filter.filter_subject ?? null,
      },
      `created the ${this.opts.name} consumer`,
    );
  }

  // One subject: filter_subject. Several: filter_subjects, or one filter covering them all on a
  // server older than 2.10 (the drain checks every subject anyway).
  private serverFilter(): Pick<ConsumerConfig, 'filter_subject' | 'filter_subjects'> {
    if (this.filters.length === 1) return { filter_subject: this.filters[0] };
    if (takesManyFilters(this.opts.nc)) return { filter_subjects: this.filters };
    const covering = coveringFilter(this.filters);
    return covering === undefined ? {} : { filter_subject: covering };
  }

  private async loop(): Promise<void> {
    let failures = 0;
    while (!this.stopping) {
      try {
        await this.ensureConsumer();
        const consumer = await jetstream(this.opts.nc).consumers.get(this.opts.stream, this.opts.durable);
        const messages = await consumer.consume({ max_messages: PULL_MAX_MESSAGES });
        this.messages = messages;
        if (this.stopping) messages.stop();
        void this.watch(messages);
        failures = 0;
        for await (const m of messages) {
          this.buffer.push(m);
          this.kick();
        }
      } catch (err) {
        if (this.stopping) break;
        failures += 1;
        this.opts.logger.warn({ err, durable: this.opts.durable }, `${this.opts.name} consumer interrupted; resuming`);
        await this.pause(Math.min(MAX_RETRY_MS, RETRY_MS * failures));
      }
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wakeRetry = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeRetry = done;
    });
  }

  // A consumer lost with a NATS store is created again; consume() then resumes on its own.
  private async watch(messages: ConsumerMessages): Promise<void> {
    try {
      for await (const s of messages.status()) {
        if (s.type === 'consumer_not_found' || s.type === 'consumer_deleted') {
          this.opts.logger.warn(
            { status: s.type, durable: this.opts.durable },
            `${this.opts.name} consumer missing; creating it again`,
          );
          await this.ensureConsumer().catch((err) =>
            this.opts.logger.warn({ err }, `could not create the ${this.opts.name} consumer yet`),
          );
        }
      }
    } catch {
      // The iterator ends with the consumer; nothing to do.
    }
  }

  private async handleAndAck(events: EventEnvelope[], messages: JsMsg[], parents?: Context[]): Promise<void> {
    if (!parents) {
      await this.opts.handle(events);
      for (const m of messages) m.ack();
      return;
    }
    // One consumer span per event, each continuing its own message's trace; the handler sees the
    // span's context in the event (and runs inside it when it handles one event), so what it
    // records — a webhook delivery — joins that trace.
    const spans = events.map((e, i) => this.processSpan(e, messages[i], parents[i]));
    try {
      if (spans.length === 1) await withSpan(spans[0], () => this.opts.handle(events));
      else await this.opts.handle(events);
    } catch (err) {
      for (const span of spans) {
        failSpan(span, err);
        span.end();
      }
      throw err;
    }
    for (const span of spans) span.end();
    for (const m of messages) m.ack();
  }

  /** The consumer span of one event; the event's `traceparent` becomes the span's. */
  private processSpan(event: EventEnvelope, m: JsMsg, parent: Context): Span {
    const span = startSpan(`process ${m.subject}`, {
      kind: SpanKind.CONSUMER,
      parent,
      attributes: {
        'messaging.system': 'nats',
        'messaging.operation.type': 'process',
        'messaging.destination.name': m.subject,
        'messaging.consumer.group.name': this.opts.durable,
        'messaging.message.id': event.id,
        'pim.event.type': event.type,
        'pim.event.deliveries': m.info.deliveryCount,
      },
    });
    const own = traceContextOf(span);
    if (own) {
      event.traceparent = own.traceparent;
      if (own.tracestate) event.tracestate = own.tracestate;
      else delete event.tracestate;
    }
    return span;
  }

  /** The context an event's message continues: its NATS headers (the relay's publish), else the envelope's own. */
  private parentOf(m: JsMsg, event: EventEnvelope): Context {
    if (m.headers?.has('traceparent')) return extractTraceContext(m.headers, headerGetter);
    return contextFromTraceparent(event.traceparent, event.tracestate);
  }

  // The handler may fail for now (try again later) or for good (keep it aside, or drop it).
  private async giveBack(m: JsMsg, event: EventEnvelope, err: unknown): Promise<void> {
    const tries = m.info.deliveryCount;
    const about = { err, event_id: event.id, event_type: event.type, subject: m.subject, seq: m.seq, tries };
    const permanent = this.isPermanent(err);
    const exhausted = this.opts.maxDeliver !== undefined && tries >= this.opts.maxDeliver;
    if (!permanent && !exhausted) {
      this.opts.logger.warn(
        { err, event_id: event.id, subject: m.subject, seq: m.seq, tries },
        `${this.opts.name}: handling an event failed; JetStream will hand it out again`,
      );
      m.nak(this.nakDelay(tries));
      return;
    }
    const why = permanent ? 'this event can never be handled' : 'this event failed on every delivery allowed';
    const { deadLetters } = this.opts;
    if (deadLetters) {
      try {
        await deadLetters.setAside({
          source: this.opts.name,
          envelope: event,
          subject: m.subject,
          attempts: tries,
          error: err,
        });
      } catch (keepErr) {
        this.opts.logger.warn(
          { ...about, keep_err: keepErr },
          `${this.opts.name}: ${why}, but it could not be kept as a dead letter; JetStream will hand it out again`,
        );
        m.nak(this.nakDelay(tries));
        return;
      }
      this.opts.logger.error(
        { ...about, max_deliver: this.opts.maxDeliver },
        `${this.opts.name}: ${why}; it is kept as a dead letter`,
      );
    } else {
      this.opts.logger.error({ ...about, max_deliver: this.opts.maxDeliver }, `${this.opts.name}: ${why}; dropping it`);
    }
    m.term();
  }

  private nakDelay(tries: number): number {
    return Math.min(this.maxNakDelayMs, this.nakDelayMs * tries);
  }

  private kick(): void {
    this.draining ??= this.drain()
      // Acks and naks throw once NATS is gone; JetStream then hands those messages out again.
      .catch((err) => this.opts.logger.warn({ err, durable: this.opts.durable }, `${this.opts.name}: draining failed`))
      .finally(() => {
        this.draining = null;
        if (this.buffer.length > 0) this.kick();
      });
  }

  private async drain(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.splice(0, this.batchSize);
      const events: EventEnvelope[] = [];
      const good: JsMsg[] = [];
      const parents: Context[] | undefined = tracingEnabled() ? [] : undefined;
      for (const m of batch) {
        if (!this.filters.some((f) => subjectMatches(f, m.subject))) {
          // Under a covering filter (or a durable made with other filters), but not asked for.
          m.ack();
          continue;
        }
        let parsed: unknown;
        try {
          parsed = m.json();
        } catch {
          parsed = undefined;
        }
        if (isEnvelope(parsed)) {
          events.push(parsed);
          good.push(m);
          parents?.push(this.parentOf(m, parsed));
        } else {
          // Not an event of ours: keeping it would only bring it back forever.
          this.opts.logger.warn(
            { subject: m.subject, seq: m.seq, durable: this.opts.durable },
            `${this.opts.name}: dropping a message that is not an event envelope`,
          );
          m.term();
        }
      }
      if (events.length === 0) continue;
      try {
        await this.handleAndAck(events, good, parents);
      } catch (err) {
        if (good.length === 1) {
          await this.giveBack(good[0], events[0], err);
          continue;
        }
        // One bad event must not hold back the rest of its batch: handle them one by one.
        this.opts.logger.warn(
          { err, count: events.length, durable: this.opts.durable },
          `${this.opts.name}: handling a batch of events failed; retrying them one by one`,
        );
        for (let i = 0; i < events.length; i++) {
          await this.handleAndAck([events[i]], [good[i]], parents && [parents[i]]).catch((e: unknown) =>
            this.giveBack(good[i], events[i], e),
          );
        }
      }
    }
  }
}
