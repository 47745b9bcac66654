import { Column, Entity, Index } from 'typeorm';
import { RecordEntity, declaredEntity } from '@pim/records';
import { PublicationBatch } from '@pim/resources';
import type { RunAs, StoredTraceContext } from '@pim/logging';

/**
 * A publication batch: the declared fields (`PublicationBatch` in @pim/resources) and the common
 * record columns, plus where its runner has got to and the lease of the runner holding it.
 */
@Entity({ name: 'publication_batches' })
@Index('IDX_publication_batches_created_at', ['created_at', '_id'])
// The run queue: batches not finished.
@Index('IDX_publication_batches_waiting', ['created_at'], {
  where: `status IN ('pending', 'processing') AND deleted = false`,
})
export class PublicationBatchEntity extends declaredEntity(PublicationBatch, RecordEntity) {
  /** The last product _id done: the next page starts after it (a runner that stopped resumes there). */
  @Column({ type: 'char', length: 24, nullable: true })
  cursor!: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  lease_until!: Date | null;

  @Column({ type: 'text', nullable: true })
  lease_token!: string | null;

  /** Who the batch runs as: its creator, so it publishes only the products they see (NULL: unrestricted). */
  @Column({ type: 'jsonb', nullable: true })
  run_as!: RunAs | null;

  /** The trace context of the request that created it (tracing on only): each run of the batch continues it. */
  @Column({ type: 'jsonb', nullable: true })
  trace_context!: StoredTraceContext | null;
}
