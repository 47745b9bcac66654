import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { NotifiedLoop } from '@pim/db';
import { ValidationError } from '@pim/errors';
import {
  contextFromTraceparent,
  currentContext,
  failSpan,
  inSpan,
  runJobAs,
  runWithContext,
  SpanKind,
  traceContextOf,
  type Logger,
  type Span,
} from '@pim/logging';
import { MAX_REFUSALS, type ProductFilters, type PublicationBatchRefusal } from '@pim/resources';
import type { PublicationBatchEntity } from '../entities/publication-batch.entity';
import type { CatalogLink } from '../links/catalog.link';
import { publishMany } from '../publication/publication.bulk';
import { channelsRepository } from '../repositories/channels.repository';
import { BATCHES_CHANNEL, type PublicationBatchesRepository } from '../repositories/publication-batches.repository';
import type { PublicationsRepository } from '../repositories/publications.repository';

/** How a batch runner runs. */
export interface BatchRunnerOptions {
  dataSource: DataSource;
  batches: PublicationBatchesRepository;
  publications: PublicationsRepository;
  catalog: CatalogLink;
  logger: Logger;
  /** Products read from the catalog and published per transaction (the list's largest page). */
  pageSize?: number;
  /** How long a batch is this runner's without progress. Default 60 s. */
  leaseMs?: number;
  pollMs?: number;
}

/** A batch stopped for a reason that will not pass by itself. */
class BatchFailed extends Error {}

const RETRY_LATER_MS = 5_000;
/** The run span's `pim.job.queue`, as io-jobs names its queues. */
const QUEUE = 'publication-batches';

/**
 * Runs a batch's writes as the platform's own work, in the run's request id: the products came
 * from the catalog as the batch's creator sees them (its page), so no sight of theirs applies to
 * writing their publications, and its events carry no actor, as every write of the runner's.
 */
const asPlatform = <T>(fn: () => Promise<T>): Promise<T> =>
  runWithContext({ requestId: currentContext()?.requestId ?? QUEUE }, fn);

/**
 * Runs publication batches: any replica claims one (a lease), reads the products its filters
 * select from the catalog page by page in `_id` order, and publishes each page in one transaction
 * that also advances the batch's cursor and counts — so a runner that stops resumes after the last
 * page written, and no product is published twice by one batch. A catalog that does not answer
 * only delays the batch; a channel gone or disabled, or filters the catalog now refuses, fail it.
 */
export class BatchRunner extends NotifiedLoop {
  private readonly token = randomUUID();
  private readonly pageSize: number;
  private readonly leaseMs: number;

  constructor(private readonly opts: BatchRunnerOptions) {
    super({
      dataSource: opts.dataSource,
      channel: BATCHES_CHANNEL,
      name: 'publication batch runner',
      logger: opts.logger,
    });
    this.pageSize = opts.pageSize ?? 100;
    this.leaseMs = opts.leaseMs ?? 60_000;
  }

  protected async loop(): Promise<void> {
    while (!this.stopping) {
      this.wakeup.reset();
      let batch: PublicationBatchEntity | null = null;
      try {
        batch = await this.opts.batches.claim(this.leaseMs, this.token);
        const held = batch;
        // As its creator: the catalog pages only the products their users groups see; in the trace
        // of the request that created it (each run a consumer span, as an io-jobs job's try).
        if (held)
          await runJobAs('publication-batch', held._id, held.run_as, () =>
            inSpan(
              `run ${QUEUE}`,
              {
                kind: SpanKind.CONSUMER,
                parent: contextFromTraceparent(held.trace_context?.traceparent, held.trace_context?.tracestate),
                attributes: { 'pim.job.queue': QUEUE, 'pim.job.id': held._id, 'pim.channel.id': held.channel_id },
              },
              (span) => this.run(held, span),
            ),
          );
      } catch (err) {
        this.opts.logger.warn(
          { err, batch_id: batch?._id },
          'publication batch interrupted; it resumes where it stopped',
        );
        if (batch) await this.opts.batches.release(batch._id, this.token, RETRY_LATER_MS).catch(() => undefined);
      }
      if (!batch) await this.wakeup.sleep(this.opts.pollMs ?? 5_000);
    }
  }

  /** Pages through the batch's products until none is left (or the lease is lost, or it stops). */
  private async run(claimed: PublicationBatchEntity, span: Span): Promise<void> {
    let cursor = claimed.cursor;
    while (!this.stopping) {
      let page: Awaited<ReturnType<CatalogLink['productsPage']>>;
      try {
        page = await this.opts.catalog.productsPage(claimed.filters as ProductFilters, cursor, this.pageSize);
      } catch (err) {
        if (err instanceof ValidationError)
          return this.fail(claimed, `The catalog refuses the filters: ${err.message}`, span);
        throw err;
      }
      // The run's span: the sends of the page's publications continue its trace.
      const trace = traceContextOf() ?? null;
      const outcome = await asPlatform(() =>
        this.opts.dataSource.transaction(async (m) => {
          // Where the next page starts, or done: set by the step below.
          const after: { cursor: string | 'done' } = { cursor: 'done' };
          const held = await this.opts.batches.advance(m, claimed._id, this.token, async (batch, tx) => {
            const [channel] = await channelsRepository.live(tx, [batch.channel_id]);
            if (!channel || !channel.enabled)
              throw new BatchFailed(`The channel was ${channel ? 'disabled' : 'deleted'} while the batch ran`);
            if (cursor === null) batch.products_count = page.total;
            const made = await publishMany(tx, this.opts.publications, channel, page.products, {
              batchId: batch._id,
              createdBy: batch.created_by_name,
              trace,
            });
            batch.publications_count += made.created;
            batch.refused_count += made.refusals.length;
            batch.refusals = [...(batch.refusals as PublicationBatchRefusal[]), ...made.refusals].slice(
              0,
              MAX_REFUSALS,
            );
            const done = page.products.length < this.pageSize;
            if (page.products.length > 0) batch.cursor = String(page.products[page.products.length - 1]._id);
            batch.lease_until = new Date(Date.now() + this.leaseMs);
            if (done) {
              Object.assign(batch, {
                status: 'completed',
                finished_at: new Date(),
                lease_until: null,
                lease_token: null,
              });
            }
            after.cursor = done ? 'done' : batch.cursor!;
            return done ? 'completed' : 'updated';
          });
          return held ? after.cursor : ('lost' as const);
        }),
      ).catch((err: unknown) => {
        if (err instanceof BatchFailed) return this.fail(claimed, err.message, span).then(() => 'lost' as const);
        throw err;
      });
      if (outcome === 'lost' || outcome === 'done') return;
      cursor = outcome;
    }
    await this.opts.batches.release(claimed._id, this.token, 0);
  }

  /** Ends a batch failed, saying why (while this runner still holds it); its run span too. */
  private async fail(claimed: PublicationBatchEntity, error: string, span: Span): Promise<void> {
    failSpan(span, { message: error }, 'BatchFailed');
    await asPlatform(() =>
      this.opts.dataSource.transaction((m) =>
        this.opts.batches.advance(m, claimed._id, this.token, async (batch) => {
          Object.assign(batch, {
            status: 'failed',
            error,
            finished_at: new Date(),
            lease_until: null,
            lease_token: null,
          });
          return 'failed';
        }),
      ),
    );
    this.opts.logger.warn({ batch_id: claimed._id, reason: error }, 'publication batch failed');
  }
}
