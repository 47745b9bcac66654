import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { EventEnvelope } from './event.envelope';

/** The `source` of the events the outbox relay set aside; a consumer's dead letters carry the consumer's name. */
export const OUTBOX_SOURCE = 'outbox';

/**
 * An event an app set aside after every try failed, so the events after it keep flowing: one its
 * outbox relay could not publish (`source` "outbox"), or one of its consumers could not handle
 * (`source` the consumer's name). The table lives in the app's own schema beside the outbox; add
 * this class to the app's entities so the drift check sees it.
 */
@Entity({ name: 'dead_letters' })
@Index('UQ_dead_letters_source_event', ['source', 'event_id'], { unique: true })
@Index('IDX_dead_letters_outbox_record', ['record_id'], { where: `"source" = 'outbox'` })
export class DeadLetter {
  @PrimaryColumn({ type: 'char', length: 24, primaryKeyConstraintName: 'PK_dead_letters' })
  id!: string;

  @Column({ type: 'text' })
  source!: string;

  @Column({ type: 'char', length: 24 })
  event_id!: string;

  @Column({ type: 'text' })
  event_type!: string;

  /** The subject as the source had it: without the deployment prefix (outbox), as received (consumers). */
  @Column({ type: 'text' })
  subject!: string;

  @Column({ type: 'char', length: 24, nullable: true })
  record_id!: string | null;

  @Column({ type: 'json' })
  envelope!: EventEnvelope;

  @Column({ type: 'timestamptz' })
  occurred_at!: Date;

  /** Publish attempts (outbox) or deliveries (consumer) that failed. */
  @Column({ type: 'int', default: 0 })
  attempts!: number;

  @Column({ type: 'text', nullable: true })
  last_error!: string | null;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  created_at!: Date;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  updated_at!: Date;
}
