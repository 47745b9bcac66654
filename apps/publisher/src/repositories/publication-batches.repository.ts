import type { DataSource, EntityManager } from 'typeorm';
import { recordEvents } from '@pim/events';
import type { PublicationBatchView } from '@pim/resources';
import { PublicationBatchEntity } from '../entities/publication-batch.entity';

/** The NOTIFY channel that wakes the batch runners of every replica when a batch is created. */
export const BATCHES_CHANNEL = 'pim_publisher_batches';

/**
 * Queries over publication batches the record engine does not run: the run queue (a batch claimed
 * under a lease, renewed page by page) and the runner's writes, each with its event.
 */
export class PublicationBatchesRepository {
  constructor(
    private readonly ds: DataSource,
    /** The record as the API shows it (the record service's view). */
    private readonly view: (record: PublicationBatchEntity) => PublicationBatchView,
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
      batch.lease_until = new Date(Date.now() + leaseMs);
      batch.lease_token = token;
      if (batch.status === 'pending') {
        batch.status = 'processing';
        batch.started_at = new Date();
        await this.save(m, batch, 'updated');
      } else await m.save(PublicationBatchEntity, batch, { reload: false });
      return batch;
    });
  }

  /** The batch, locked, while this runner's lease still holds it; null once another runner took it over. */
  held(m: EntityManager, id: string, token: string): Promise<PublicationBatchEntity | null> {
    return m.findOne(PublicationBatchEntity, {
      where: { _id: id, lease_token: token, deleted: false },
      lock: { mode: 'pessimistic_write' },
    });
  }

  /** Writes a batch with its next version and its event. */
  async save(m: EntityManager, record: PublicationBatchEntity, action: string): Promise<void> {
    record.version += 1;
    record.updated_at = new Date();
    await m.save(PublicationBatchEntity, record, { reload: false });
    await recordEvents(m, [
      { source: 'publisher', collection: 'publication_batches', action, data: this.view(record), actor: null },
    ]);
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
