import type { DataSource, EntityManager } from 'typeorm';
import { NotifiedLoop, transactionRetryingDeadlocks } from '@pim/db';
import { schemaOf } from '@pim/events';
import type { Logger } from '@pim/logging';
import type { ProductInput, ProductView } from '@pim/resources';
import { RecordService } from '@pim/records';
import { CATALOG_STORE } from '../catalog.records';
import { ProductEntity } from '../entities/product.entity';
import {
  claimCompletenessJob,
  failCompletenessJob,
  finishCompletenessJob,
  releaseCompletenessJob,
  renewCompletenessJob,
  type HeldJob,
} from '../repositories/completeness-jobs.repository';
import { familiesReaching } from '../repositories/families.repository';
import { liveProductsByIds, productsInScope } from '../repositories/products.repository';
import { productResource } from '../product/product.resource';
import { productCompleteness, type Completeness } from '../product/product.completeness';
import { completenessChannel } from './completeness.jobs';
import { loadRequirementWorld } from './completeness.world';

/** How an app runs its completeness worker. */
export interface CompletenessWorkerOptions {
  dataSource: DataSource;
  logger: Logger;
  /** Products read, recomputed and written per transaction. Default 500. */
  batchSize?: number;
  /** Polling interval when no NOTIFY arrives. Default 5 s. */
  pollMs?: number;
  /** How long a taken job stays the worker's without news from it (renewed by every batch). Default 60 s. */
  leaseMs?: number;
  /** Longest wait for transactions older than a job before walking its products. Default 30 s. */
  settleMaxMs?: number;
  /** Test hook: a batch committed (job id, products it changed); awaited before the next batch. */
  onBatch?: (jobId: string, updated: number) => Promise<void> | void;
}

/** What a run did: jobs finished and products whose completeness changed. */
export interface CompletenessRun {
  jobs: number;
  updated: number;
}

/** A product's recomputed completeness, to write if the row is still at `version`. */
interface Change {
  id: string;
  version: number;
  completeness: Completeness;
}

/** Outcomes of a batch's write that mean "not written, moved on": a new version (412) or deleted (404). */
const MOVED_ON = new Set([404, 412]);

/** Another worker took the job over (our lease ran out): stop touching it. */
class LeaseLost extends Error {
  constructor(id: string) {
    super(`completeness job ${id} is no longer held by this worker`);
  }
}

/** Rounds of re-reading products that moved on under a batch (see recompute). */
const RETRY_ROUNDS = 3;
const SETTLE_POLL_MS = 25;
const ERROR_TEXT_MAX = 2_000;

const sameCompleteness = (stored: ProductEntity, next: Completeness): boolean => {
  if (stored.completeness_min !== next.completeness_min) return false;
  const a = Object.keys(stored.completeness ?? {});
  const b = Object.keys(next.completeness);
  return a.length === b.length && b.every((k) => stored.completeness[k] === next.completeness[k]);
};

/**
 * Recomputes stored completeness after changes of required attributes (completeness_jobs). Any
 * replica takes the oldest free job by lease (FOR UPDATE SKIP LOCKED on the claim, then a
 * lease renewed by every batch, so no transaction stays open across a job), waits until the
 * transactions that were running when it was taken have ended, then walks the job's products by
 * `_id` in batches: one read, one read of the families and attributes they need, the same
 * computation as the write path, and one transaction writing the changed rows through the record
 * engine (`mutateMany` at the version read: rows locked in `_id` order, one UPDATE, their
 * `products.updated` events with one COPY) and the job's progress. Wakes on NOTIFY, polls as a
 * fallback, never throws.
 */
export class CompletenessWorker extends NotifiedLoop {
  private readonly ds: DataSource;
  private readonly products: RecordService<ProductEntity, ProductView, ProductInput>;
  private readonly batchSize: number;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly settleMaxMs: number;
  private failures = 0;

  constructor(private readonly opts: CompletenessWorkerOptions) {
    // Jobs committed while the worker was not listening are found by the next run.
    super({
      dataSource: opts.dataSource,
      channel: completenessChannel(schemaOf(opts.dataSource.options)),
      name: 'completeness worker',
      logger: opts.logger,
    });
    this.ds = opts.dataSource;
    this.products = new RecordService(this.ds, productResource, CATALOG_STORE);
    this.batchSize = opts.batchSize ?? 500;
    this.pollMs = opts.pollMs ?? 5_000;
    this.leaseMs = opts.leaseMs ?? 60_000;
    this.settleMaxMs = opts.settleMaxMs ?? 30_000;
  }

  /** Runs every job that is free now to its end (or until stop); what the loop does on each wake. */
  async runOnce(): Promise<CompletenessRun> {
    const run: CompletenessRun = { jobs: 0, updated: 0 };
    while (!this.stopping) {
      const job = await this.claim();
      if (job === null) break;
      try {
        const done = await this.process(job, run);
        if (done) run.jobs += 1;
      } catch (err) {
        if (err instanceof LeaseLost) {
          this.opts.logger.warn({ job: job.id }, err.message);
          continue;
        }
        await this.fail(job, err);
        throw err;
      }
    }
    return run;
  }

  protected async loop(): Promise<void> {
    while (!this.stopping) {
      this.wakeup.reset();
      try {
        const run = await this.runOnce();
        if (run.jobs > 0) this.opts.logger.info(run, 'completeness recomputed');
        this.failures = 0;
      } catch (err) {
        this.failures += 1;
        this.opts.logger.error({ err }, 'completeness job failed; it will be retried');
      }
      if (this.stopping) break;
      await this.wakeup.sleep(
        this.failures > 0 ? Math.min(30_000, this.pollMs * 2 ** Math.min(this.failures, 6)) : this.pollMs,
      );
    }
  }

  /** Takes the oldest job nobody holds (or whose holder's lease ran out). */
  private claim(): Promise<HeldJob | null> {
    return claimCompletenessJob(this.ds.manager, this.leaseMs);
  }

  /** Walks the job's products from where it stopped; true when it reached the end (and the job is gone). */
  private async process(job: HeldJob, run: CompletenessRun): Promise<boolean> {
    await this.settle(job);
    // The families whose products the job concerns: named by it, holding its groups, or naming its attributes.
    const families = await familiesReaching(this.ds.manager, job);
    let after = job.after_id;
    for (;;) {
      if (this.stopping) {
        await this.release(job);
        return false;
      }
      const rows = await this.nextBatch(job, families, after);
      if (rows.length === 0) break;
      after = rows[rows.length - 1]._id;
      const updated = await this.recompute(job, rows, after);
      run.updated += updated;
      await this.opts.onBatch?.(job.id, updated);
      if (rows.length < this.batchSize) break;
    }
    if (!(await finishCompletenessJob(this.ds.manager, job))) throw new LeaseLost(job.id);
    return true;
  }

  /**
   * Waits until the transactions that were open when the job was taken have ended. A product
   * write reads the attributes without locking them, so one that began before the change
   * committed may store a completeness computed from the old definitions; once it has ended,
   * the walk sees (and fixes) what it stored. Bounded: a transaction left open for long only
   * delays the job by settleMaxMs. Only this app's connections count (its application_name):
   * the other apps sharing the database never write products.
   */
  private async settle(job: HeldJob): Promise<void> {
    const until = Date.now() + this.settleMaxMs;
    for (;;) {
      const [{ n }]: { n: number }[] = await this.ds.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE "datname" = current_database() AND "application_name" = current_setting('application_name')
            AND "pid" <> pg_backend_pid() AND "backend_type" = 'client backend' AND "xact_start" < $1`,
        [job.claimed_at],
      );
      if (n === 0 || this.stopping) return;
      if (Date.now() >= until) {
        this.opts.logger.warn(
          { job: job.id, open: n },
          'completeness job goes on although older transactions are still open',
        );
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
    }
  }

  /** The next live products of the job after `after` (see productsInScope). */
  private nextBatch(job: HeldJob, families: string[], after: string | null): Promise<ProductEntity[]> {
    const scope = { group_ids: job.group_ids, category_ids: job.category_ids, family_ids: families };
    return productsInScope(this.ds.manager, scope, after, this.batchSize);
  }

  /**
   * Recomputes a batch and writes the rows whose completeness changed, only where the row is
   * still at the version read. A row that moved on was written meanwhile by a transaction the
   * write's row lock waited for; it is read again and recomputed (that writer may have read the
   * old definitions), up to RETRY_ROUNDS times. The job's progress is written with the last round.
   */
  private async recompute(job: HeldJob, rows: ProductEntity[], after: string): Promise<number> {
    let pending = rows;
    let updated = 0;
    for (let round = 1; ; round++) {
      const changes = await this.changesOf(pending);
      const moved = await this.write(job, changes);
      updated += changes.length - moved.length;
      if (moved.length === 0 || round === RETRY_ROUNDS) {
        if (moved.length > 0)
          this.opts.logger.warn(
            { job: job.id, products: moved },
            'products kept changing under the completeness recompute; left to their own writes',
          );
        await this.advance(job, after);
        return updated;
      }
      pending = await liveProductsByIds(this.ds.manager, moved);
    }
  }

  /** The products of a batch whose completeness differs from the stored one, with the version read. */
  private async changesOf(rows: ProductEntity[]): Promise<Change[]> {
    if (rows.length === 0) return [];
    const world = await loadRequirementWorld(this.ds.manager, rows);
    const changes: Change[] = [];
    for (const row of rows) {
      const completeness = productCompleteness(row, world);
      if (!sameCompleteness(row, completeness)) changes.push({ id: row._id, version: row.version, completeness });
    }
    return changes;
  }

  /**
   * One transaction: the changed rows still at their version written by the record engine
   * (`mutateMany`: row locks in `_id` order, one UPDATE with the next version and the rendered
   * view, one `products.updated` event each in one COPY), and the job's lease renewed. A product
   * at another version (412) or deleted (404) is not written: its id is returned, to be read
   * again. Run again on a deadlock (the products' code locks are taken in `_id` order, a bulk
   * upsert's in code order).
   */
  private async write(job: HeldJob, changes: Change[]): Promise<string[]> {
    if (changes.length === 0) return [];
    const byId = new Map(changes.map((c) => [c.id, c.completeness]));
    return transactionRetryingDeadlocks(this.ds, async (m) => {
      const outcomes = await this.products.inTransaction(m).mutateMany(
        changes.map((c) => ({ id: c.id, expectedVersion: c.version })),
        (record) => void Object.assign(record, byId.get(record._id)),
      );
      const moved: string[] = [];
      for (const [i, o] of outcomes.entries()) {
        if (o.status === 'updated') continue;
        if (o.status === 'failed' && MOVED_ON.has(o.error!.status)) moved.push(changes[i].id);
        else throw o.error ?? new Error(`completeness of product ${changes[i].id} came back ${o.status}`);
      }
      await this.renew(m, job, null, changes.length - moved.length);
      return moved;
    });
  }

  /** Records how far the job got (and renews its lease), or throws LeaseLost when another worker holds it now. */
  private async advance(job: HeldJob, after: string): Promise<void> {
    await this.renew(this.ds.manager, job, after, 0);
  }

  private async renew(m: EntityManager, job: HeldJob, after: string | null, updated: number): Promise<void> {
    if (!(await renewCompletenessJob(m, job, after, updated, this.leaseMs))) throw new LeaseLost(job.id);
  }

  /** Hands the job back untouched beyond its progress, for the next worker (this one is stopping). */
  private async release(job: HeldJob): Promise<void> {
    await releaseCompletenessJob(this.ds.manager, job);
  }

  /** Notes the error and lets the job wait a little before any worker takes it again. */
  private async fail(job: HeldJob, err: unknown): Promise<void> {
    const text = (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, ERROR_TEXT_MAX);
    await failCompletenessJob(this.ds.manager, job, text, Math.min(this.leaseMs, 5_000)).catch(() => undefined);
  }
}
