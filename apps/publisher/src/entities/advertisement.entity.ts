import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * An advertisement: one product's listing on one channel. Every publication of the pair names it
 * (`advertisement_id`); it remembers the latest publication and the last one that reached the
 * channel, which decide whether a product change publishes again (auto_republish).
 */
@Entity({ name: 'advertisements' })
@Index('UQ_advertisements_product_channel', ['product_id', 'channel_id'], { unique: true })
@Index('IDX_advertisements_channel', ['channel_id'])
export class AdvertisementEntity {
  @PrimaryColumn({ type: 'char', length: 24 })
  _id!: string;

  @Column({ type: 'char', length: 24 })
  product_id!: string;

  @Column({ type: 'char', length: 24 })
  channel_id!: string;

  @Column({ type: 'timestamptz' })
  created_at!: Date;

  /** The newest publication of the pair. */
  @Column({ type: 'char', length: 24 })
  latest_publication_id!: string;

  /** The last publication the channel accepted, when and with what content. */
  @Column({ type: 'char', length: 24, nullable: true })
  published_publication_id!: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  published_at!: Date | null;

  @Column({ type: 'text', nullable: true })
  published_hash!: string | null;
}
