import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { EventEnvelope } from '@pim/events';

/**
 * Every event the fan-out recorded, once: the key is the event id, so an event JetStream hands
 * over again creates nothing. Deliveries read their payload from here.
 */
@Entity({ name: 'inbox' })
@Index('IDX_inbox_received_at', ['received_at'])
export class InboxEvent {
  @PrimaryColumn({ type: 'char', length: 24, primaryKeyConstraintName: 'PK_inbox' })
  event_id!: string;

  @Column({ type: 'text' })
  type!: string;

  @Column({ type: 'text' })
  collection!: string;

  @Column({ type: 'text' })
  source!: string;

  @Column({ type: 'timestamptz' })
  occurred_at!: Date;

  @Column({ type: 'text', nullable: true })
  request_id!: string | null;

  /** The event as received; NULL when no webhook took it (only deliveries need the payload). */
  @Column({ type: 'jsonb', nullable: true })
  envelope!: EventEnvelope | null;

  @Column({ type: 'timestamptz' })
  received_at!: Date;
}
