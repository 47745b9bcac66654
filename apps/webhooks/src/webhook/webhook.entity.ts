import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** A {key, value} pair as stored in jsonb. */
export interface KeyValuePair {
  key: string;
  value: string;
}

/** Webhook configuration (interface 2.14) with the common fields and a signing secret. */
@Entity({ name: 'webhooks' })
@Index('UQ_webhooks_collection_live', ['collection'], { unique: true, where: 'deleted = false' })
@Index('IDX_webhooks_created_at', ['created_at', '_id'])
export class WebhookEntity {
  @PrimaryColumn({ type: 'char', length: 24 })
  _id!: string;

  @Column({ type: 'text' })
  collection!: string;

  @Column({ type: 'text', nullable: true })
  url!: string | null;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  headers!: KeyValuePair[];

  @Column({ type: 'jsonb', default: () => "'[]'" })
  body!: KeyValuePair[];

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  /** Signing secret (`whsec_<base64>`); needed in clear to sign deliveries, never listed. */
  @Column({ type: 'text' })
  secret!: string;

  /** The secret before the last rotation; it keeps signing until previous_secret_expires_at. */
  @Column({ type: 'text', nullable: true })
  previous_secret!: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  previous_secret_expires_at!: Date | null;

  @Column({ type: 'integer', default: 1 })
  version!: number;

  @Column({ type: 'timestamptz' })
  created_at!: Date;

  @Column({ type: 'timestamptz' })
  updated_at!: Date;

  @Column({ type: 'text', nullable: true })
  created_by_name!: string | null;

  @Column({ type: 'boolean', default: false })
  deleted!: boolean;

  @Column({ type: 'timestamptz', nullable: true })
  deleted_at!: Date | null;

  @Column({ type: 'text', nullable: true })
  deleted_by!: string | null;
}
