import type { DataSource } from 'typeorm';
import { NotifiedLoop } from '@pim/db';
import {
  contextFromTraceparent,
  endHttpClientSpan,
  runWithContext,
  startHttpClientSpan,
  startSpan,
  tracingEnabled,
  withSpan,
  type Logger,
  type Span,
} from '@pim/logging';
import type { WebhookMetrics } from '../metrics/metrics';
import { DELIVERIES_CHANNEL, DeliveryQueue, nextState, type Completion } from './deliveries.repository';
import type { AttemptResult, ClaimedDelivery, DeliverySender } from './delivery.sender';
import { nextDelay } from '@pim/outbound';
import type { Keyring } from '@pim/secrets';

/** How a delivery worker runs. */
export interface DeliveryWorkerOptions {
  dataSource: DataSource;
  /** Opens the webhooks' sealed signing secrets. */
  secrets: Keyring;
  sender: DeliverySender;
  logger: Logger;
  metrics?: WebhookMetrics;
  /** Requests in flight in this process. */
  concurrency: number;
  /** Requests in flight to one webhook across every replica. */
  perWebhookConcurrency: number;
  leaseMs: number;
  /** Longest sleep without a notification. */
  pollMs: number;
  /** Delay before each retry (ms). */
  schedule: number[];
  jitter: number;
  /** Called once a receiver answered 410 Gone, to disable its webhook. */
  onGone?: (webhookId: string) => Promise<void>;
  /** Retention of finished deliveries (days); the purge runs hourly. 0: never purge. */
  retentionDays?: number;
  /** Claimed deliveries per query. Default 100. */
  claimBatch?: number;
  /** Time in-flight requests get to finish on stop(). Default 10 s. */
  stopGraceMs?: number;
}

interface InFlight {
  delivery: ClaimedDelivery;
  /** Local time before which the lease is surely still ours (our clock, measured before the DB set it). */
  deadline: number;
  abort: AbortController;
  done?: Promise<void>;
}

/** Raised into an in-flight request when its lease cannot be kept. */
class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
}

const PURGE_EVERY_MS = 3_600_000;
// Outcomes that arrive within this long of each other are written in one transaction.
const FLUSH_DELAY_MS = 2;
// Cycles (record outcomes + claim) a worker runs at once.
const CYCLES_IN_FLIGHT = 2;
// Most outcomes recorded in one cycle.
const MAX_RECORD_BATCH = 500;
const MAX_BACKOFF_MS = 30_000;

/**
 * Claims due deliveries (any replica; leases renewed while a request runs), sends them with
 * bounded concurrency, and records each outcome and the next attempt. An attempt's outcome is
 * written only while its lease is still held, so an attempt never overwrites another worker's.
 */
export class DeliveryWorker extends NotifiedLoop {
  private readonly queue: DeliveryQueue;
  private readonly inflight = new Map<string, InFlight>();
  private completions: Completion[] = [];
  private flushTimer: NodeJS.Timeout | null = null;
  private renewTimer: NodeJS.Timeout | null = null;
  // Slots promised to claims of cycles in flight (their deliveries are not in `inflight` yet).
  private reserved = 0;
  private lastPurge = 0;
  private failures = 0;
  private readonly claimBatch: number;
  private readonly margin: number;
  private readonly minClaim: number;

  constructor(private readonly opts: DeliveryWorkerOptions) {
    // Two loops, so one cycle can record and claim while the other's is on its way: a burst's slots
    // are refilled without waiting for a whole cycle to finish first. Claims still serialize on the
    // advisory lock; per-webhook counts stay exact.
    super({
      dataSource: opts.dataSource,
      channel: DELIVERIES_CHANNEL,
      name: 'delivery worker',
      logger: opts.logger,
      loops: CYCLES_IN_FLIGHT,
    });
    this.queue = new DeliveryQueue(opts.dataSource, opts.secrets);
    this.claimBatch = opts.claimBatch ?? 100;
    // A request is aborted this long before the lease would run out without a renewal.
    this.margin = Math.min(2_000, Math.round(opts.leaseMs / 5));
    this.minClaim = Math.max(1, Math.min(this.claimBatch, Math.ceil(opts.concurrency / 4)));
  }

  /** Starts claiming in the background (deliveries committed while nobody listened are claimed by the first cycle). */
  override async start(): Promise<void> {
    if (this.isRunning) return;
    await super.start();
    const renewEvery = Math.max(50, Math.floor(this.opts.leaseMs / 3));
    this.renewTimer = setInterval(() => void this.renew(), renewEvery);
  }

  /** Stops claiming, lets requests in flight finish (aborting them after the grace period), records them. */
  override async stop(): Promise<void> {
    if (!this.isRunning) {
      await this.queue.close().catch(() => undefined);
      return;
    }
    await super.stop();
    const grace = this.opts.stopGraceMs ?? 10_000;
    const all = Promise.all([...this.inflight.values()].map((f) => f.done));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      all.then(() => false),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(true), grace))),
    ]);
    clearTimeout(timer);
    if (timedOut) {
      for (const f of this.inflight.values()) f.abort.abort(new LeaseLostError('the worker is shutting down'));
      await all;
    }
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    await this.drain();
    if (this.renewTimer) clearInterval(this.renewTimer);
    this.renewTimer = null;
    await this.queue.close().catch(() => undefined);
  }

  /** Requests in flight in this process (for tests and metrics). */
  get inFlight(): number {
    return this.inflight.size;
  }

  /**
   * The worker's only writer of outcomes and claims while it runs: each turn records the outcomes
   * that arrived and claims into the slots they free (plus any other free ones) in one round trip,
   * so a finished request's slot is refilled without a second trip to Postgres.
   */
  protected async loop(index: number): Promise<void> {
    const main = index === 0;
    while (!this.stopping) {
      // Reset on every turn of the main loop: a wake-up that arrives while it works makes its next
      // sleep return at once.
      if (main) this.wakeup.reset();
      // The second loop only takes a burst worth a cycle of its own; small ones wait for the main loop.
      const batch =
        main || this.completions.length >= this.minClaim ? this.completions.splice(0, MAX_RECORD_BATCH) : [];
      if (!main && batch.length === 0) {
        await this.wakeup.sleep(this.opts.pollMs, true, false);
        continue;
      }
      // Slots held by the outcomes of this batch are free once it commits, i.e. before the claim runs.
      const free = this.opts.concurrency - this.inflight.size - this.reserved + batch.length;
      // Near capacity with nothing to record, wait for a few slots rather than claiming them one at a time.
      const want =
        batch.length === 0 && this.inflight.size > 0 && free < this.minClaim
          ? 0
          : Math.max(0, Math.min(free, this.claimBatch));
      let nextDueAt: Date | null = null;
      let claimed = 0;
      if (want > 0 || batch.length > 0) {
        const began = Date.now();
        this.reserved += want;
        try {
          const r = await this.queue.cycle(batch, want, this.opts.perWebhookConcurrency, this.opts.leaseMs);
          this.observeCycle(began, batch, r.lost);
          this.failures = 0;
          if (r.claim) {
            this.opts.metrics?.queueBatch.observe({ op: 'claim' }, r.claim.deliveries.length);
            nextDueAt = r.claim.nextDueAt;
            claimed = r.claim.deliveries.length;
            for (const d of r.claim.deliveries) this.launch(d, began + this.opts.leaseMs);
          }
        } catch (err) {
          this.failures += 1;
          // Keep the outcomes (renew keeps their leases alive) and try again after the back-off.
          this.completions.unshift(...batch);
          this.opts.logger.error(
            { err, outcomes: batch.length },
            'recording outcomes / claiming deliveries failed; will retry',
          );
        } finally {
          this.reserved -= want;
        }
      }
      if (this.stopping) break;
      if (this.failures === 0 && (this.completions.length > 0 || (claimed > 0 && claimed === want))) continue;
      if (main) {
        await this.maybePurge();
      }
      if (this.stopping) break;
      let wait = this.opts.pollMs;
      if (this.failures > 0)
        wait = Math.min(MAX_BACKOFF_MS, Math.max(100, this.opts.pollMs) * 2 ** Math.min(this.failures, 8));
      else if (nextDueAt) wait = Math.max(0, Math.min(wait, nextDueAt.getTime() - Date.now() + 1));
      await this.wakeup.sleep(wait, this.failures === 0);
    }
  }

  /** Metrics and log lines of a cycle that committed; frees the slots of the recorded outcomes. */
  private observeCycle(began: number, batch: Completion[], lost: Set<string>): void {
    const seconds = (Date.now() - began) / 1000;
    if (batch.length > 0) {
      this.opts.metrics?.queueSeconds.observe({ op: 'record' }, seconds);
      this.opts.metrics?.queueBatch.observe({ op: 'record' }, batch.length);
    }
    this.opts.metrics?.queueSeconds.observe({ op: 'claim' }, seconds);
    for (const id of lost)
      this.opts.logger.warn(
        { delivery_id: id },
        'lease was lost before the outcome was recorded; the attempt is logged, the delivery is left to its new holder',
      );
    for (const c of batch) this.inflight.delete(c.delivery.id);
  }

  private launch(d: ClaimedDelivery, deadline: number): void {
    const entry: InFlight = { delivery: d, deadline, abort: new AbortController() };
    this.inflight.set(d.id, entry);
    if (d.attempt === 1)
      this.opts.metrics?.firstAttemptLag.observe(Math.max(0, Date.now() - d.occurredAt.getTime()) / 1000);
    entry.done = runWithContext({ requestId: d.requestId ?? `delivery-${d.id}` }, async () => {
      let result: AttemptResult;
      if (Date.now() >= entry.deadline - this.margin) {
        // The claim took so long that the lease may already be someone else's: do not send.
        result = {
          outcome: 'interrupted',
          startedAt: new Date(),
          durationMs: 0,
          error: 'not sent: the lease was about to run out before the request started',
        };
      } else {
        const span = attemptSpan(d);
        result = await withSpan(span, () => this.opts.sender.send(d, entry.abort.signal));
        endAttemptSpan(span, result);
      }
      this.finish(d, result);
    }).catch((err) => this.opts.logger.error({ err, delivery_id: d.id }, 'delivery attempt crashed'));
  }

  private finish(d: ClaimedDelivery, result: AttemptResult): void {
    const delayFor = (failed: number) => nextDelay(this.opts.schedule, failed, this.opts.jitter);
    const state = nextState(result, d.attemptsSinceQueued, delayFor);
    this.opts.metrics?.observeAttempt(result.outcome, result.durationMs);
    if (state.status !== 'pending') this.opts.metrics?.finished.inc({ status: state.status });
    const level = result.outcome === 'success' ? 'debug' : 'info';
    // A success is logged at debug: build its line only when someone reads it.
    if (this.opts.logger.isLevelEnabled(level))
      this.opts.logger[level](
        {
          delivery_id: d.id,
          webhook_id: d.webhookId,
          event_id: d.eventId,
          event_type: d.eventType,
          attempt: d.attempt,
          outcome: result.outcome,
          status_code: result.statusCode,
          duration_ms: result.durationMs,
          error: result.error,
          next_attempt_at: state.nextAttemptAt?.toISOString(),
          status: state.status,
        },
        'delivery attempt',
      );
    this.completions.push({
      delivery: d,
      result,
      url: d.url,
      status: state.status,
      nextAttemptAt: state.nextAttemptAt,
    });
    if (result.outcome === 'gone' && this.opts.onGone) {
      this.opts
        .onGone(d.webhookId)
        .catch((err) => this.opts.logger.error({ err, webhook_id: d.webhookId }, 'disabling a gone webhook failed'));
    }
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.flushTimer) return;
    // Outcomes that arrive within FLUSH_DELAY_MS of each other go into one cycle.
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      this.wake();
    }, FLUSH_DELAY_MS);
  }

  /** After the loop ended: records the outcomes left, without claiming. */
  private async drain(): Promise<void> {
    let tries = 0;
    while (this.completions.length > 0) {
      const batch = this.completions.splice(0, MAX_RECORD_BATCH);
      const began = Date.now();
      try {
        const r = await this.queue.cycle(batch, 0, this.opts.perWebhookConcurrency, this.opts.leaseMs);
        this.observeCycle(began, batch, r.lost);
        tries = 0;
      } catch (err) {
        tries += 1;
        this.opts.logger.error({ err, count: batch.length }, 'recording delivery outcomes failed; will retry');
        if (tries > 3) {
          // The leases run out and another replica sends these again: a duplicate, never a loss.
          for (const c of batch) this.inflight.delete(c.delivery.id);
          continue;
        }
        this.completions.unshift(...batch);
        await new Promise((r) => setTimeout(r, Math.min(MAX_BACKOFF_MS, 100 * 2 ** tries)));
      }
    }
  }

  private async renew(): Promise<void> {
    const held = [...this.inflight.values()];
    if (held.length === 0) return;
    const started = Date.now();
    try {
      const lost = await this.queue.renew(
        held.map((f) => ({ id: f.delivery.id, token: f.delivery.token })),
        this.opts.leaseMs,
      );
      for (const f of held) {
        if (lost.has(f.delivery.id)) f.abort.abort(new LeaseLostError('another worker holds this delivery now'));
        else f.deadline = started + this.opts.leaseMs;
      }
    } catch (err) {
      this.opts.logger.warn({ err }, 'renewing delivery leases failed');
      const now = Date.now();
      for (const f of held)
        if (now >= f.deadline - this.margin) f.abort.abort(new LeaseLostError('the lease could not be renewed'));
    }
  }

  private async maybePurge(): Promise<void> {
    const days = this.opts.retentionDays ?? 0;
    if (days <= 0 || Date.now() - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = Date.now();
    try {
      const n = await this.queue.purge(days);
      if (n > 0) this.opts.logger.info({ deleted: n }, 'purged old deliveries and events');
    } catch (err) {
      this.opts.logger.warn({ err }, 'purging old deliveries failed; will retry later');
    }
  }
}

/**
 * The span of one attempt (tracing on): a client span in the trace of the event's fan-out, whose
 * context the inbox keeps in the event's envelope — so the POST sits in the trace of the request
 * that caused the event. A redelivery or a retry is another attempt span in that same trace.
 */
function attemptSpan(d: ClaimedDelivery): Span {
  if (!tracingEnabled()) return startSpan('');
  return startHttpClientSpan(`deliver ${d.eventType}`, {
    method: 'POST',
    url: d.url,
    parent: contextFromTraceparent(d.envelope.traceparent, d.envelope.tracestate),
    attributes: {
      'pim.webhook.id': d.webhookId,
      'pim.delivery.id': d.id,
      'pim.delivery.attempt': d.attempt,
      'pim.event.id': d.eventId,
      'pim.event.type': d.eventType,
    },
  });
}

function endAttemptSpan(span: Span, result: AttemptResult): void {
  if (!span.isRecording()) return span.end();
  span.setAttribute('pim.delivery.outcome', result.outcome);
  endHttpClientSpan(span, {
    statusCode: result.statusCode,
    errorType: result.outcome === 'success' ? undefined : result.outcome,
    message: result.error,
  });
}
