import type { DataSource, EntityManager } from 'typeorm';
import { NotFoundError } from '@pim/errors';
import type { RecordService } from '@pim/records';
import type { PublicationBatchInput, PublicationBatchView } from '@pim/resources';
import { PublicationBatchEntity } from '../entities/publication-batch.entity';

/** The NOTIFY channel that wakes the batch runners of every replica when a batch is created. */
export const BATCHES_CHANNEL = 'pim_publisher_batches';

/** The publication batches' record service: every change of a batch the API shows goes through it. */
export type PublicationBatchRecords = RecordService<
  PublicationBatchEntity,
  PublicationBatchView,
  PublicationBatchInput
>;

/**
 * Queries over publication batches the record engine does not run: the run queue (a batch claimed
 * under a lease, renewed page by page) and the runner's steps, each written through the engine
 * (`mutate`: its version and its event) while the runner's lease holds the batch.
 */
export class PublicationBatchesRepository {
  constructor(
    private readonly ds: DataSource,
    private readonly batches: PublicationBatchRecords,
  ) {}

  /** Wakes the runners once the running transaction commits. */
  async notify(m: EntityManager): Promise<void> {
    await m.query(`SELECT pg_notify($1, '')`, [BATCHES_CHANNEL]);
  }

  /** Claims the oldest unfinished batch no runner holds (a pending one begins: processing). */
  async claim(leaseMs: number, token: string): Promise<PublicationBatchEntity | null> {
    return this.ds.transaction(async (m) => {
      const batch = await m
        .createQueryBuilder(PublicationBatchEntity, 'b')
        .where(`b.deleted = false AND b.status IN ('pending', 'processing')`)
        .andWhere('(b.lease_until IS NULL OR b.lease_until < now())')
        .orderBy('b.created_at', 'ASC')
        .limit(1)
        .setLock('pessimistic_write')
        .setOnLocked('skip_locked')
        .getOne();
      if (!batch) return null;
      const lease = { lease_until: new Date(Date.now() + leaseMs), lease_token: token };
      if (batch.status === 'pending') {
        const { record } = await this.batches.inTransaction(m).mutate(batch._id, undefined, (b) => {
          Object.assign(b, lease, { status: 'processing', started_at: new Date() });
          return { event: 'updated' };
        });
        return record;
      }
      // Resumed: the lease alone, the runner's bookkeeping the API never shows (no version, no event).
      await m.update(PublicationBatchEntity, { _id: batch._id }, lease);
      return Object.assign(batch, lease);
    });
  }

  /**
   * One step of a run, in the caller's transaction, while this runner's lease still holds the
   * batch: `step` edits the batch under its row lock and names its event (`updated`, `completed`,
   * `failed`), and the engine writes it with its next version. False (nothing written) once
   * another runner took the batch over, or it was deleted.
   */
  async advance(
    m: EntityManager,
    id: string,
    token: string,
    step: (batch: PublicationBatchEntity, m: EntityManager) => Promise<string>,
  ): Promise<boolean> {
    let held = false;
    try {
      await this.batches.inTransaction(m).mutate(id, undefined, async (batch, tx) => {
        if (batch.lease_token !== token) return false;
        held = true;
        return { event: await step(batch, tx) };
      });
    } catch (err) {
      // The batch deleted meanwhile (its row lock found no live record): the run stops.
      if (err instanceof NotFoundError && !held) return false;
      throw err;
    }
    return held;
  }

  /** Lets the batch be taken again after `delayMs` (the catalog did not answer): by this runner or any other. */
  async release(id: string, token: string, delayMs: number): Promise<void> {
    await this.ds
      .createQueryBuilder()
      .update(PublicationBatchEntity)
      .set({ lease_until: new Date(Date.now() + delayMs) })
      .where('_id = :id AND lease_token = :token', { id, token })
      .execute();
  }
}
