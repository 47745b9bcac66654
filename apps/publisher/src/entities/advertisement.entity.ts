import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * An advertisement: one product's listing on one channel. Every publication of the pair names it
 * (`advertisement_id`); it names the latest publication, and its row lock orders the pair's
 * creations. What the channel last accepted is its latest published publication
 * (`advertisementsRepository.publishedOf`): nothing is copied here at each outcome.
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
}
