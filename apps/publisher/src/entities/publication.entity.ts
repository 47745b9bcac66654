import { Column, Entity, Index } from 'typeorm';
import { RecordEntity, declaredEntity } from '@pim/records';
import type { StoredTraceContext } from '@pim/logging';
import { Publication } from '@pim/resources';

/**
 * A publication: the declared fields (`Publication` in @pim/resources) and the common record
 * columns, plus what the sender and the catalog sync need and the API never shows.
 */
@Entity({ name: 'publications' })
@Index('IDX_publications_created_at', ['created_at', '_id'])
@Index('IDX_publications_advertisement', ['advertisement_id', '_id'])
@Index('IDX_publications_product', ['product_id'])
@Index('IDX_publications_batch', ['batch_id'], { where: 'batch_id IS NOT NULL' })
// The send queue: publications waiting for (or between) requests.
@Index('IDX_publications_due', ['next_attempt_at'], {
  where: `status IN ('ready_to_publish', 'publishing') AND deleted = false`,
})
// What each advertisement's channel accepted last (the latest published publication of the pair).
@Index('IDX_publications_published', ['advertisement_id', 'outcome_at'], { where: `status = 'published'` })
// Outcomes the catalog has not recorded on the product yet.
@Index('IDX_publications_sync_due', ['outcome_at'], { where: 'product_sync_due' })
// A products.updated event makes at most one publication per channel.
@Index('UQ_publications_source_event', ['source_event_id', 'channel_id'], {
  unique: true,
  where: 'source_event_id IS NOT NULL',
})
export class PublicationEntity extends declaredEntity(Publication, RecordEntity) {
  /** The channel's code when the publication was made (the product's publishments name it). */
  @Column({ type: 'text' })
  channel_code!: string;

  /** A fingerprint of the snapshot's content (not its publication fields nor its version). */
  @Column({ type: 'text' })
  content_hash!: string;

  /** While a request is in flight: until when the sender holding it owns it, and its token. */
  @Column({ type: 'timestamptz', nullable: true })
  lease_until!: Date | null;

  @Column({ type: 'text', nullable: true })
  lease_token!: string | null;

  /** When it ended published or failed. */
  @Column({ type: 'timestamptz', nullable: true })
  outcome_at!: Date | null;

  /** Its outcome still has to be recorded on the catalog product. */
  @Column({ type: 'boolean', default: false })
  product_sync_due!: boolean;

  /** The products.updated event that made it (auto_republish). */
  @Column({ type: 'text', nullable: true })
  source_event_id!: string | null;

  /**
   * The trace context of what set it to be sent (tracing on only; NULL otherwise): the creating
   * write, the batch run or a retry. Each attempt's span continues it.
   */
  @Column({ type: 'jsonb', nullable: true })
  trace_context!: StoredTraceContext | null;
}
