import { nanos, type NatsConnection } from '@nats-io/transport-node';
import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  type ConsumerMessages,
  type JsMsg,
} from '@nats-io/jetstream';
import type { EventEnvelope } from '@pim/events';
import type { Logger } from '@pim/logging';
import type { WebhookMetrics } from '../metrics/metrics';
import { isEnvelope, type FanoutRecorder } from '../delivery/fanout.recorder';

/** How the fan-out consumes the events stream. */
export interface FanoutConsumerOptions {
  nc: NatsConnection;
  stream: string;
  /** '' in production; tests use their own. */
  subjectPrefix: string;
  /** Durable consumer name, shared by every replica. */
  durable: string;
  recorder: FanoutRecorder;
  logger: Logger;
  metrics?: WebhookMetrics;
  /** Called after a batch created deliveries (wakes this process's worker without waiting for NOTIFY). */
  onDeliveries?: () => void;
  /** Messages recorded per transaction. Default 200. */
  batchSize?: number;
  /** How long JetStream waits for an ack before handing a message out again. Default 30 s. */
  ackWaitMs?: number;
}

const CONSUMER_NOT_FOUND = 10014;
const RETRY_MS = 1_000;
const MAX_RETRY_MS = 15_000;
const NAK_DELAY_MS = 2_000;
const MAX_NAK_DELAY_MS = 30_000;

/** Whether Postgres refused the data itself (SQLSTATE class 22), which no retry can fix. */
function isDataError(err: unknown): boolean {
  const e = err as { code?: unknown; driverError?: { code?: unknown } };
  const code =
    typeof e?.code === 'string' ? e.code : typeof e?.driverError?.code === 'string' ? e.driverError.code : '';
  return code.startsWith('22');
}

/**
 * A durable JetStream pull consumer on `pim.>` shared by every replica: messages are buffered as
 * they arrive and recorded in batches (inbox + deliveries, one transaction), then acknowledged.
 * A crash before the ack means JetStream hands the events out again; the inbox makes that a no-op.
 */
export class FanoutConsumer {
  private readonly buffer: JsMsg[] = [];
  private messages: ConsumerMessages | null = null;
  private running: Promise<void> | null = null;
  private draining: Promise<void> | null = null;
  private stopping = false;
  private readonly batchSize: number;

  constructor(private readonly opts: FanoutConsumerOptions) {
    this.batchSize = opts.batchSize ?? 200;
  }

  /** Starts consuming in the background (creating the durable consumer when missing, retrying while NATS is away). */
  start(): void {
    if (this.running) return;
    this.stopping = false;
    this.running = this.loop().catch((err) => this.opts.logger.error({ err }, 'fan-out loop ended unexpectedly'));
  }

  /** Stops pulling, records what was already received, and returns. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.stopping = true;
    this.messages?.stop();
    await this.running;
    this.running = null;
    await this.draining;
  }

  /** Creates the durable consumer if it does not exist (any replica may; the same config is idempotent). */
  async ensureConsumer(): Promise<void> {
    const jsm = await jetstreamManager(this.opts.nc);
    try {
      await jsm.consumers.info(this.opts.stream, this.opts.durable);
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
      // Everything the stream still holds: the inbox drops what was already recorded.
      deliver_policy: DeliverPolicy.All,
      filter_subject: `${this.opts.subjectPrefix}pim.>`,
      ack_wait: nanos(this.opts.ackWaitMs ?? 30_000),
      max_ack_pending: 5_000,
    });
    this.opts.logger.info({ stream: this.opts.stream, durable: this.opts.durable }, 'created the fan-out consumer');
  }

  private async loop(): Promise<void> {
    let failures = 0;
    while (!this.stopping) {
      try {
        await this.ensureConsumer();
        const consumer = await jetstream(this.opts.nc).consumers.get(this.opts.stream, this.opts.durable);
        const messages = await consumer.consume({ max_messages: 1_000 });
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
        this.opts.logger.warn({ err }, 'fan-out consumer interrupted; resuming');
        await new Promise((r) => setTimeout(r, Math.min(MAX_RETRY_MS, RETRY_MS * failures)));
      }
    }
  }

  // A consumer lost with a NATS store is created again; consume() then resumes on its own.
  private async watch(messages: ConsumerMessages): Promise<void> {
    try {
      for await (const s of messages.status()) {
        if (s.type === 'consumer_not_found' || s.type === 'consumer_deleted') {
          this.opts.logger.warn({ status: s.type }, 'fan-out consumer missing; creating it again');
          await this.ensureConsumer().catch((err) =>
            this.opts.logger.warn({ err }, 'could not create the fan-out consumer yet'),
          );
        }
      }
    } catch {
      // The iterator ends with the consumer; nothing to do.
    }
  }

  private async recordAndAck(events: EventEnvelope[], messages: JsMsg[]): Promise<void> {
    const r = await this.opts.recorder.record(events);
    for (const m of messages) m.ack();
    this.opts.metrics?.events.inc({ result: 'recorded' }, r.recorded);
    this.opts.metrics?.events.inc({ result: 'duplicate' }, r.duplicates);
    this.opts.metrics?.created.inc(r.deliveries);
    if (r.deliveries > 0) this.opts.onDeliveries?.();
  }

  // Postgres may be away (try again later, for as long as it takes) or refuse this event's data (drop it).
  private giveBack(m: JsMsg, err: unknown): void {
    if (isDataError(err)) {
      this.opts.logger.error(
        { err, subject: m.subject, seq: m.seq, tries: m.info.deliveryCount },
        'Postgres refuses the data of this event; dropping it',
      );
      m.term();
      return;
    }
    this.opts.logger.warn(
      { err, subject: m.subject, seq: m.seq },
      'recording an event failed; JetStream will hand it out again',
    );
    m.nak(Math.min(MAX_NAK_DELAY_MS, NAK_DELAY_MS * m.info.deliveryCount));
  }

  private kick(): void {
    this.draining ??= this.drain().finally(() => {
      this.draining = null;
      if (this.buffer.length > 0) this.kick();
    });
  }

  private async drain(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.splice(0, this.batchSize);
      const events: EventEnvelope[] = [];
      const good: JsMsg[] = [];
      for (const m of batch) {
        let parsed: unknown;
        try {
          parsed = m.json();
        } catch {
          parsed = undefined;
        }
        if (isEnvelope(parsed)) {
          events.push(parsed);
          good.push(m);
        } else {
          // Not an event of ours: keeping it would only bring it back forever.
          this.opts.logger.warn({ subject: m.subject, seq: m.seq }, 'dropping a message that is not an event envelope');
          m.term();
        }
      }
      if (events.length === 0) continue;
      try {
        await this.recordAndAck(events, good);
      } catch (err) {
        if (good.length === 1) {
          this.giveBack(good[0], err);
          continue;
        }
        // One bad event must not hold back the rest of its batch: record them one by one.
        this.opts.logger.warn(
          { err, count: events.length },
          'recording a batch of events failed; retrying them one by one',
        );
        for (let i = 0; i < events.length; i++) {
          await this.recordAndAck([events[i]], [good[i]]).catch((e: unknown) => this.giveBack(good[i], e));
        }
      }
    }
  }
}
