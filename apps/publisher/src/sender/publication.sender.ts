import { randomUUID } from 'node:crypto';
import type { Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import type { Dispatcher } from 'undici';
import { NotifiedLoop } from '@pim/db';
import { withSpan, type Logger } from '@pim/logging';
import { nextDelay } from '@pim/outbound';
import type { ChannelEndpoint, ChannelMapping } from '@pim/resources';
import type { Keyring } from '@pim/secrets';
import type { ChannelEntity } from '../entities/channel.entity';
import type { PublicationEntity } from '../entities/publication.entity';
import type { CatalogLink } from '../links/catalog.link';
import { buildPayload, type ProductSnapshot } from '../products/product.payload';
import { track } from '../entities/publication.tracking';
import { channelsRepository } from '../repositories/channels.repository';
import { PUBLICATIONS_CHANNEL, type PublicationsRepository } from '../repositories/publications.repository';
import { openEndpoint } from '../channel/channel.endpoint';
import { attemptSpan, endAttemptSpan } from './attempt.span';
import { sendToChannel, type ChannelAnswer } from './channel.request';
import { publicationOutcomes } from './publication.metrics';

/** How a sender runs. */
export interface PublicationSenderOptions {
  dataSource: DataSource;
  publications: PublicationsRepository;
  catalog: CatalogLink;
  /** Opens the channels' sealed credentials. */
  secrets: Keyring;
  agent: Dispatcher;
  logger: Logger;
  /** Requests in flight in this process. */
  concurrency: number;
  leaseMs: number;
  /** Longest sleep without a notification. */
  pollMs: number;
  /** Delay before each retry (ms), after a timeout, a network error or a 5xx. */
  schedule: number[];
  jitter: number;
  /** Time in-flight requests get to finish on stop(). Default 10 s. */
  stopGraceMs?: number;
  /** The app's Prometheus registry: outcomes are counted on `pim_publisher_publications_total{outcome}`. */
  metrics?: Registry;
}

/** What one request ended with, waiting to be written. */
interface Done {
  /** The publication as this sender claimed it: its lease keeps it so until the outcome is written. */
  publication: PublicationEntity;
  answer: ChannelAnswer;
  payload: unknown;
}

/** What a request's answer makes of its publication, decided when the outcomes are written. */
interface Outcome {
  done: Done;
  /** When it was decided: the outcome's time, and its tracking entry's. */
  at: Date;
  /** Published or failed for good; null: another attempt at `retryAt`. */
  ends: 'published' | 'failed' | null;
  retryAt: Date | null;
  /** Whether the catalog hears of it: a success, or a failure where the channel lists an earlier version. */
  toCatalog: boolean;
}

/** Claimed per query. */
const CLAIM_BATCH = 200;
/** Outcomes the catalog is asked to record per call. */
const SYNC_BATCH = 500;
/** Outcomes not recorded on the catalog product within this long are tried again by any replica. */
const SYNC_LATE_MS = 10_000;
const MAX_BACKOFF_MS = 30_000;

/** What a request's answer makes of its publication (the record as claimed: attempts, advertisement). */
function decide(done: Done, schedule: number[], jitter: number, at: Date): Outcome {
  const a = done.answer;
  if (a.kind === 'published') return { done, at, ends: 'published', retryAt: null, toCatalog: true };
  const delay = a.kind === 'retry' ? nextDelay(schedule, done.publication.attempts, jitter) : null;
  if (delay === null) return { done, at, ends: 'failed', retryAt: null, toCatalog: false };
  const wait = Math.max(delay, a.kind === 'retry' ? (a.retryAfterMs ?? 0) : 0);
  return { done, at, ends: null, retryAt: new Date(at.getTime() + wait), toCatalog: false };
}

/**
 * The outcome applied to its publication under the row lock, and the event that says so;
 * `recorded`: the catalog has it already (else `product_sync_due` asks for it later).
 */
function applied(o: Outcome, recorded: boolean): (record: PublicationEntity) => Promise<string> {
  return async (record) => {
    const a = o.done.answer;
    record.published_payload = o.done.payload as Record<string, unknown>;
    const data = [
      `attempt=${record.attempts}`,
      ...(a.status ? [`http_status=${a.status}`] : []),
      `duration_ms=${a.durationMs}`,
    ];
    if (a.kind === 'published') {
      Object.assign(record, {
        status: 'published',
        publishment_url: a.url ?? null,
        next_attempt_at: null,
        outcome_at: o.at,
        product_sync_due: !recorded,
      });
      track(
        record,
        'PUBLISHED',
        `The channel '${record.channel_code}' accepted it (${a.status})`,
        [...data, ...(a.url ? [`url=${a.url}`] : [])],
        o.at,
      );
      return 'status_changed';
    }
    if (o.retryAt !== null) {
      record.next_attempt_at = o.retryAt;
      track(record, 'PENDING', `${a.message}; the next attempt is at ${o.retryAt.toISOString()}`, data, o.at);
      return 'updated';
    }
    const gaveUp = a.kind === 'retry' ? ` (gave up after ${record.attempts} attempts)` : '';
    Object.assign(record, {
      status: 'failed',
      next_attempt_at: null,
      outcome_at: o.at,
      product_sync_due: o.toCatalog && !recorded,
    });
    track(record, 'FAILED', `${a.message}${gaveUp}`, data, o.at);
    return 'status_changed';
  };
}

/** What stops a claimed publication before any request: its channel is gone or disabled. */
function channelProblem(p: PublicationEntity, channel: ChannelEntity | undefined): string | null {
  if (!channel) return `The channel '${p.channel_code}' was deleted before the publication was sent`;
  if (!channel.enabled) return `The channel '${channel.code}' was disabled before the publication was sent`;
  return null;
}

/**
 * Sends publications to their channels. Any replica claims due publications (a lease each, the
 * oldest waiting one of each product and channel only), sends them with bounded concurrency, and
 * writes each outcome — published, a retry at a later time, or failed — while its lease holds;
 * then the catalog records the outcomes on the products (again later, by any replica, when the
 * catalog does not answer).
 */
export class PublicationSender extends NotifiedLoop {
  private readonly token = randomUUID();
  private inflight = 0;
  private done: Done[] = [];
  private readonly requests = new Set<Promise<void>>();
  private failures = 0;
  private lastLateSync = 0;
  /** Until when outcomes are written without asking the catalog first (it did not answer): the late sync sends them. */
  private catalogAwayUntil = 0;
  /** The outcomes being written (one write at a time), and when a failed write is tried again. */
  private settling?: Promise<void>;
  private settleFailures = 0;
  private settleAfter = 0;
  private readonly outcomes?: ReturnType<typeof publicationOutcomes>;

  constructor(private readonly opts: PublicationSenderOptions) {
    super({
      dataSource: opts.dataSource,
      channel: PUBLICATIONS_CHANNEL,
      name: 'publication sender',
      logger: opts.logger,
    });
    this.outcomes = opts.metrics && publicationOutcomes(opts.metrics);
  }

  protected async loop(): Promise<void> {
    while (!this.stopping) {
      this.wakeup.reset();
      let claimedAll = false;
      try {
        this.settle();
        const free = this.opts.concurrency - this.inflight;
        if (free > 0) {
          const want = Math.min(free, CLAIM_BATCH);
          const claimed = await this.opts.publications.claim(want, this.opts.leaseMs, this.token);
          await this.send(claimed);
          claimedAll = claimed.length === want;
        }
        await this.syncLate();
        this.failures = 0;
      } catch (err) {
        this.failures += 1;
        this.opts.logger.warn({ err }, 'publication sender round failed; trying again');
        await this.wakeup.sleep(Math.min(MAX_BACKOFF_MS, 500 * 2 ** this.failures), false);
        continue;
      }
      if (!claimedAll || this.inflight >= this.opts.concurrency) await this.wakeup.sleep(await this.sleepMs());
    }
    await this.drain();
  }

  /** Until the next retry comes due, at most the poll interval. */
  private async sleepMs(): Promise<number> {
    const next = await this.opts.publications.nextDue().catch(() => null);
    if (!next) return this.opts.pollMs;
    return Math.max(5, Math.min(this.opts.pollMs, next.getTime() - Date.now()));
  }

  /** Starts the requests of claimed publications (a gone or disabled channel fails at once). */
  private async send(claimed: PublicationEntity[]): Promise<void> {
    if (claimed.length === 0) return;
    const channels = new Map(
      (
        await channelsRepository.live(
          this.opts.dataSource.manager,
          claimed.map((p) => p.channel_id),
        )
      ).map((c) => [c._id, c]),
    );
    for (const p of claimed) {
      const channel = channels.get(p.channel_id);
      const problem = channelProblem(p, channel);
      if (problem) {
        this.done.push({ publication: p, answer: { kind: 'failed', message: problem, durationMs: 0 }, payload: null });
        continue;
      }
      let endpoint: ChannelEndpoint;
      try {
        endpoint = openEndpoint(channel!.endpoint as ChannelEndpoint, this.opts.secrets);
      } catch (err) {
        // An operator key missing: nothing is sent without its credentials; retried on the schedule.
        const message = `The channel's credentials cannot be opened: ${(err as Error).message}`;
        const answer: ChannelAnswer = {
          kind: 'retry',
          error: 'sealed_credentials',
          message,
          retryAfterMs: null,
          durationMs: 0,
        };
        this.done.push({ publication: p, answer, payload: null });
        continue;
      }
      const payload = buildPayload(
        { mapping: channel!.mapping as ChannelMapping[], language: channel!.language ?? null },
        p.product_snapshot as ProductSnapshot,
      );
      this.inflight += 1;
      const span = attemptSpan(p, endpoint);
      const request = withSpan(span, () => sendToChannel(this.opts.agent, endpoint, payload, p._id)).then((answer) => {
        endAttemptSpan(span, answer);
        this.done.push({ publication: p, answer, payload });
      });
      const tracked = request.finally(() => {
        this.inflight -= 1;
        this.requests.delete(tracked);
        this.wakeup.wake();
      });
      this.requests.add(tracked);
    }
    if (this.done.length > 0) this.wakeup.wake();
  }

  /**
   * Starts writing the outcomes that arrived, unless a write is under way (the next one takes
   * whatever arrived meanwhile): beside the claims, so a slot freed by an answer is claimed again
   * without waiting for the catalog or the outcome's transaction. A failed write is tried again
   * after a growing pause; the leases hold its publications meanwhile.
   */
  private settle(): void {
    if (this.settling || this.done.length === 0 || Date.now() < this.settleAfter) return;
    this.settling = this.flush()
      .then(
        () => void (this.settleFailures = 0),
        (err: unknown) => {
          this.settleFailures += 1;
          this.settleAfter = Date.now() + Math.min(MAX_BACKOFF_MS, 500 * 2 ** this.settleFailures);
          this.opts.logger.warn({ err }, 'publication outcomes not written; trying again');
        },
      )
      .finally(() => {
        this.settling = undefined;
        this.wakeup.wake();
      });
  }

  /**
   * Writes the outcomes that arrived. The catalog records the final ones on their products first
   * (RecordPublishments), so an outcome is written once, already recorded; one the catalog did not
   * take is written with `product_sync_due`, and the late sync sends it again.
   */
  private async flush(): Promise<void> {
    if (this.done.length === 0) return;
    const batch = this.done;
    this.done = [];
    let written: PublicationEntity[];
    try {
      const at = new Date();
      const outcomes = batch.map((d) => decide(d, this.opts.schedule, this.opts.jitter, at));
      // The catalog hears of a failure only where the channel lists an earlier version of the product.
      const failed = outcomes.filter((o) => o.ends === 'failed');
      const listed = await this.opts.publications.everPublished(
        this.opts.dataSource.manager,
        failed.map((o) => o.done.publication.advertisement_id),
      );
      for (const o of failed) o.toCatalog = listed.has(o.done.publication.advertisement_id);
      const recorded = await this.recordOnCatalog(outcomes.filter((o) => o.toCatalog));
      written = await this.opts.publications.complete(
        this.token,
        new Map(outcomes.map((o) => [o.done.publication._id, applied(o, recorded.has(o.done.publication._id))])),
      );
    } catch (err) {
      this.done.push(...batch); // written next round; the leases still hold them
      throw err;
    }
    for (const p of written) {
      this.outcomes?.inc({
        outcome: p.status === 'published' ? 'published' : p.status === 'failed' ? 'failed' : 'retried',
      });
    }
  }

  /**
   * Has the catalog record outcomes on their products, before they are written; answers the
   * publications whose outcome it took. One that does not answer is left alone for a while (its
   * outcomes are written as due, and the late sync sends them).
   */
  private async recordOnCatalog(outcomes: Outcome[]): Promise<Set<string>> {
    const recorded = new Set<string>();
    if (outcomes.length === 0 || Date.now() < this.catalogAwayUntil) return recorded;
    for (let i = 0; i < outcomes.length; i += SYNC_BATCH) {
      const batch = outcomes.slice(i, i + SYNC_BATCH);
      try {
        await this.opts.catalog.recordPublishments(
          batch.map((o) => ({
            product_id: o.done.publication.product_id,
            channel: o.done.publication.channel_code,
            status: o.ends === 'published' ? 'PUBLISHED' : 'FAILED',
            at: o.at.toISOString(),
            publication_id: o.done.publication._id,
          })),
        );
      } catch (err) {
        this.catalogAwayUntil = Date.now() + SYNC_LATE_MS;
        this.opts.logger.warn(
          { err, publications: outcomes.length - i },
          'the catalog did not record publication outcomes; they are sent again later',
        );
        break;
      }
      for (const o of batch) recorded.add(o.done.publication._id);
    }
    return recorded;
  }

  /** Outcomes left unrecorded (the catalog was away, a replica stopped) are sent again, every few seconds. */
  private async syncLate(): Promise<void> {
    if (Date.now() - this.lastLateSync < SYNC_LATE_MS) return;
    this.lastLateSync = Date.now();
    const due = await this.opts.publications.syncDue(SYNC_BATCH, new Date(Date.now() - SYNC_LATE_MS));
    if (due.length === 0) return;
    try {
      await this.opts.catalog.recordPublishments(
        due.map((p) => ({
          product_id: p.product_id,
          channel: p.channel_code,
          status: p.status === 'published' ? 'PUBLISHED' : 'FAILED',
          at: (p.outcome_at ?? new Date()).toISOString(),
          publication_id: p._id,
        })),
      );
    } catch (err) {
      this.opts.logger.warn(
        { err, publications: due.length },
        'the catalog did not record publication outcomes; trying again later',
      );
      return;
    }
    this.catalogAwayUntil = 0;
    await this.opts.publications.synced(due.map((p) => p._id));
  }

  /** On stop: lets requests in flight finish (a grace period), then writes their outcomes. */
  private async drain(): Promise<void> {
    const grace = new Promise((r) => setTimeout(r, this.opts.stopGraceMs ?? 10_000).unref());
    await Promise.race([Promise.all(this.requests), grace]);
    await this.settling;
    await this.flush().catch((err) =>
      this.opts.logger.warn(
        { err },
        'publication outcomes left unwritten at stop; their leases run out and they are sent again',
      ),
    );
  }
}
