import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { EventEnvelope } from './event.envelope';

/** Name of the partial index the relay scans for unpublished events. */
export const OUTBOX_PENDING_INDEX = 'IDX_outbox_unpublished';

/** Name of the partial index of unpublished events whose publish failed, by record (their records' later events wait). */
export const OUTBOX_RETRYING_INDEX = 'IDX_outbox_retrying';

/**
 * An event waiting for (or done with) publication. The table lives in the app's own schema
 * (the DataSource sets it); add this class to the app's entities so the drift check sees it.
 */
@Entity({ name: 'outbox' })
@Index(OUTBOX_PENDING_INDEX, ['occurred_at'], { where: '"published_at" IS NULL' })
@Index(OUTBOX_RETRYING_INDEX, ['record_id'], { where: '"published_at" IS NULL AND "next_attempt_at" IS NOT NULL' })
export class OutboxEvent {
  @PrimaryColumn({ type: 'char', length: 24, primaryKeyConstraintName: 'PK_outbox' })
  id!: string;

  @Column({ type: 'text' })
  type!: string;

  /** Subject without the deployment prefix; the relay adds its own. */
  @Column({ type: 'text' })
  subject!: string;

  /** `json`, not jsonb: stored and read back as text (see OUTBOX_ENVELOPE_AS_JSON_UP_SQL). */
  @Column({ type: 'json' })
  envelope!: EventEnvelope;

  @Column({ type: 'timestamptz' })
  occurred_at!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  published_at!: Date | null;

  @Column({ type: 'int', default: 0 })
  attempts!: number;

  @Column({ type: 'text', nullable: true })
  last_error!: string | null;

  /** The `_id` of the record the event is about (its data's), when it has one: a record's events are published in order. */
  @Column({ type: 'char', length: 24, nullable: true })
  record_id!: string | null;

  /**
   * Set once a publish of the event failed: when the relay may try it again. While it is set and
   * the event unpublished, the later events of its record wait (OutboxRelay).
   */
  @Column({ type: 'timestamptz', nullable: true })
  next_attempt_at!: Date | null;
}
