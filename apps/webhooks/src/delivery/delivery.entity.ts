import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { AttemptOutcome, DeliveryStatus } from '@pim/resources';
import { InboxEvent } from '../inbox/inbox.entity';
import { WebhookEntity } from '../webhook/webhook.entity';

/**
 * One event to one webhook. The row is its own queue entry: `pending` rows whose
 * `next_attempt_at` has come are claimed by any replica, which holds a lease (token + expiry,
 * renewed while the request runs) and writes the outcome only while it still holds it.
 */
@Entity({ name: 'deliveries' })
@Index('UQ_deliveries_event_webhook', ['event_id', 'webhook_id'], { unique: true })
@Index('IDX_deliveries_due', ['webhook_id', 'next_attempt_at', '_id'], { where: "status = 'pending'" })
@Index('IDX_deliveries_leased', ['webhook_id'], { where: 'lease_token IS NOT NULL' })
@Index('IDX_deliveries_list', ['webhook_id', 'created_at', '_id'])
export class DeliveryEntity {
  @PrimaryColumn({ type: 'char', length: 24, primaryKeyConstraintName: 'PK_deliveries' })
  _id!: string;

  @Column({ type: 'char', length: 24 })
  webhook_id!: string;

  @ManyToOne(() => WebhookEntity)
  @JoinColumn({ name: 'webhook_id', referencedColumnName: '_id', foreignKeyConstraintName: 'FK_deliveries_webhook' })
  webhook?: WebhookEntity;

  @Column({ type: 'char', length: 24 })
  event_id!: string;

  @ManyToOne(() => InboxEvent)
  @JoinColumn({ name: 'event_id', referencedColumnName: 'event_id', foreignKeyConstraintName: 'FK_deliveries_event' })
  event?: InboxEvent;

  @Column({ type: 'text' })
  event_type!: string;

  @Column({ type: 'text' })
  status!: DeliveryStatus;

  /** Attempts started so far (a claim counts one). */
  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  /** `attempts` when the delivery was last (re)queued: the retry schedule counts from here. */
  @Column({ type: 'integer', default: 0 })
  retry_base!: number;

  @Column({ type: 'timestamptz', nullable: true })
  next_attempt_at!: Date | null;

  /** Set while a worker holds the delivery; cleared when it records the outcome. */
  @Column({ type: 'uuid', nullable: true })
  lease_token!: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  lease_expires_at!: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  last_attempt_at!: Date | null;

  @Column({ type: 'integer', nullable: true })
  last_status_code!: number | null;

  @Column({ type: 'text', nullable: true })
  last_response_body!: string | null;

  @Column({ type: 'integer', nullable: true })
  last_duration_ms!: number | null;

  @Column({ type: 'text', nullable: true })
  last_error!: string | null;

  @Column({ type: 'text', nullable: true })
  request_id!: string | null;

  @Column({ type: 'timestamptz' })
  event_occurred_at!: Date;

  @Column({ type: 'timestamptz' })
  created_at!: Date;

  @Column({ type: 'timestamptz' })
  updated_at!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  completed_at!: Date | null;
}

/**
 * One HTTP attempt of a delivery, as it ended. No foreign key to deliveries: its check would lock
 * the delivery row on every insert, right beside the update of that row, and cost the queue a
 * third of its throughput; only the queue writes here, and the purge removes attempts with their delivery.
 */
@Entity({ name: 'delivery_attempts' })
@Index('IDX_delivery_attempts_delivery', ['delivery_id', 'number'])
export class DeliveryAttemptEntity {
  @PrimaryColumn({ type: 'char', length: 24, primaryKeyConstraintName: 'PK_delivery_attempts' })
  _id!: string;

  @Column({ type: 'char', length: 24 })
  delivery_id!: string;

  @Column({ type: 'integer' })
  number!: number;

  @Column({ type: 'timestamptz' })
  started_at!: Date;

  @Column({ type: 'integer', nullable: true })
  duration_ms!: number | null;

  @Column({ type: 'text' })
  outcome!: AttemptOutcome;

  @Column({ type: 'integer', nullable: true })
  status_code!: number | null;

  @Column({ type: 'text', nullable: true })
  response_body!: string | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ type: 'text', nullable: true })
  url!: string | null;
}
