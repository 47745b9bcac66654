import type { NatsConnection } from '@nats-io/transport-node';
import { EventConsumer, type DeadLetterSink } from '@pim/events';
import type { Logger } from '@pim/logging';
import type { WebhookMetrics } from '../metrics/metrics';
import type { FanoutRecorder } from '../delivery/fanout.recorder';

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
  /** The app's dead letters: an event that fails on `maxDeliver` deliveries (or for good) is kept there, under `fan-out`. */
  deadLetters?: DeadLetterSink;
  /** Deliveries after which a failing event is set aside. Default: retried for as long as it takes. */
  maxDeliver?: number;
}

/**
 * The fan-out: a durable JetStream consumer (@pim/events' EventConsumer) on `pim.>` shared by
 * every replica, recording each batch of events (inbox + deliveries, one transaction) before it
 * is acknowledged. A crash before the ack means JetStream hands the events out again; the inbox
 * makes that a no-op. An event Postgres refuses the data of, or that still fails after
 * `maxDeliver` deliveries, is set aside in the app's dead letters (source `fan-out`), from where an
 * admin re-drives it once the cause is fixed; the events after it go on meanwhile.
 */
export class FanoutConsumer {
  private readonly consumer: EventConsumer;

  constructor(opts: FanoutConsumerOptions) {
    const { recorder, metrics, onDeliveries } = opts;
    this.consumer = new EventConsumer({
      nc: opts.nc,
      stream: opts.stream,
      durable: opts.durable,
      filterSubjects: [`${opts.subjectPrefix}pim.>`],
      logger: opts.logger,
      name: 'fan-out',
      batchSize: opts.batchSize,
      ackWaitMs: opts.ackWaitMs,
      deadLetters: opts.deadLetters,
      maxDeliver: opts.maxDeliver,
      metrics: metrics?.registry,
      handle: async (events) => {
        const r = await recorder.record(events);
        metrics?.events.inc({ result: 'recorded' }, r.recorded);
        metrics?.events.inc({ result: 'duplicate' }, r.duplicates);
        metrics?.created.inc(r.deliveries);
        if (r.deliveries > 0) onDeliveries?.();
      },
    });
  }

  /** Starts consuming in the background (creating the durable consumer when missing, retrying while NATS is away). */
  start(): void {
    this.consumer.start();
  }

  /** Stops pulling, records what was already received, and returns. */
  stop(): Promise<void> {
    return this.consumer.stop();
  }

  /** Creates the durable consumer if it does not exist (any replica may; the same config is idempotent). */
  ensureConsumer(): Promise<void> {
    return this.consumer.ensureConsumer();
  }
}
