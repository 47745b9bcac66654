import { Column, Entity, Index } from 'typeorm';
import { RecordEntity, declaredEntity } from '@pim/records';
import { Webhook } from '@pim/resources';

/** A {key, value} pair as stored in jsonb. */
export interface KeyValuePair {
  key: string;
  value: string;
}

/** Webhook configuration: the declared fields (`Webhook` in @pim/resources), the common record fields and a signing secret. */
@Entity({ name: 'webhooks' })
@Index('UQ_webhooks_collection_live', ['collection'], { unique: true, where: 'deleted = false' })
@Index('IDX_webhooks_created_at', ['created_at', '_id'])
export class WebhookEntity extends declaredEntity(Webhook, RecordEntity) {
  /**
   * Signing secret (`whsec_<base64>`), sealed with the operator key (@pim/secrets: a JWE naming its
   * key); opened only to sign deliveries and to show it once, never listed. A value in clear is one
   * written before sealing existed: the re-seal pass seals it.
   */
  @Column({ type: 'text' })
  secret!: string;

  /** The secret before the last rotation, sealed like `secret`; it keeps signing until previous_secret_expires_at. */
  @Column({ type: 'text', nullable: true })
  previous_secret!: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  previous_secret_expires_at!: Date | null;
}
