import { Counter, Histogram, Registry } from 'prom-client';

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const LAG_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/** The webhooks app's Prometheus metrics, on the app's registry (a registry of their own in tests). */
export class WebhookMetrics {
  /** Attempts by outcome (success, http_error, rate_limited, gone, timeout, network_error, blocked, interrupted). */
  readonly attempts = new Counter({
    name: 'pim_webhooks_attempts_total',
    help: 'Delivery attempts by outcome',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  /** Duration of attempts by outcome. */
  readonly attemptSeconds = new Histogram({
    name: 'pim_webhooks_attempt_duration_seconds',
    help: 'Duration of one delivery attempt, by outcome',
    labelNames: ['outcome'],
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  /** From the event's occurred_at to the start of its first attempt. */
  readonly firstAttemptLag = new Histogram({
    name: 'pim_webhooks_event_to_first_attempt_seconds',
    help: 'Time from an event to the first attempt of each of its deliveries',
    buckets: LAG_BUCKETS,
    registers: [this.registry],
  });
  /** Deliveries that reached a final state, by that state. */
  readonly finished = new Counter({
    name: 'pim_webhooks_deliveries_finished_total',
    help: 'Deliveries that succeeded or failed for good',
    labelNames: ['status'],
    registers: [this.registry],
  });
  /** Events the fan-out saw: recorded (new) or duplicate (already in the inbox). */
  readonly events = new Counter({
    name: 'pim_webhooks_fanout_events_total',
    help: 'Events consumed by the fan-out',
    labelNames: ['result'],
    registers: [this.registry],
  });
  /** Deliveries the fan-out created. */
  readonly created = new Counter({
    name: 'pim_webhooks_deliveries_created_total',
    help: 'Deliveries created by the fan-out',
    registers: [this.registry],
  });

  /** Duration of the queue's own statements: claim (with leases) and record (outcomes), per batch. */
  readonly queueSeconds = new Histogram({
    name: 'pim_webhooks_queue_seconds',
    help: 'Duration of one claim or one batch of recorded outcomes',
    labelNames: ['op'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [this.registry],
  });
  /** Deliveries per claim or per batch of recorded outcomes. */
  readonly queueBatch = new Histogram({
    name: 'pim_webhooks_queue_batch_size',
    help: 'Deliveries handled by one claim or one batch of recorded outcomes',
    labelNames: ['op'],
    buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500],
    registers: [this.registry],
  });

  constructor(readonly registry: Registry = new Registry()) {}

  /** Records one finished attempt. */
  observeAttempt(outcome: string, durationMs: number): void {
    this.attempts.inc({ outcome });
    this.attemptSeconds.observe({ outcome }, durationMs / 1000);
  }
}
