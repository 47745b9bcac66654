import type { EntityManager } from 'typeorm';
import { newId } from '@pim/ids';
import { AdvertisementEntity } from '../entities/advertisement.entity';

/** An advertisement some channel accepted, with what it accepted last (its content fingerprint). */
export type PublishedAdvertisement = Pick<
  AdvertisementEntity,
  '_id' | 'product_id' | 'channel_id' | 'latest_publication_id'
> & { published_hash: string };

/** Queries over advertisements: each product's listing on a channel. */
export const advertisementsRepository = {
  /**
   * The advertisement of a product on a channel, made on its first publication, now naming
   * `publicationId` as its latest. Its row lock is held until the caller's transaction ends, so
   * publications of one product and channel are created one after the other.
   */
  async makeLatest(m: EntityManager, productId: string, channelId: string, publicationId: string): Promise<string> {
    const rows: { _id: string }[] = await m.query(
      `INSERT INTO advertisements (_id, product_id, channel_id, created_at, latest_publication_id)
       VALUES ($1, $2, $3, now(), $4)
       ON CONFLICT (product_id, channel_id) DO UPDATE SET latest_publication_id = EXCLUDED.latest_publication_id
       RETURNING _id`,
      [newId(), productId, channelId, publicationId],
    );
    return rows[0]._id;
  },

  /**
   * `makeLatest` for many products of one channel at once (distinct products): answers each
   * product's advertisement id.
   */
  async makeLatestMany(
    m: EntityManager,
    channelId: string,
    pairs: { productId: string; publicationId: string }[],
  ): Promise<Map<string, string>> {
    if (pairs.length === 0) return new Map();
    const rows: { _id: string; product_id: string }[] = await m.query(
      `INSERT INTO advertisements (_id, product_id, channel_id, created_at, latest_publication_id)
       SELECT a._id, a.product_id, $3, now(), a.publication_id
       FROM unnest($1::char(24)[], $2::char(24)[], $4::char(24)[]) AS a(_id, product_id, publication_id)
       ON CONFLICT (product_id, channel_id) DO UPDATE SET latest_publication_id = EXCLUDED.latest_publication_id
       RETURNING _id, product_id`,
      [pairs.map(() => newId()), pairs.map((p) => p.productId), channelId, pairs.map((p) => p.publicationId)],
    );
    return new Map(rows.map((r) => [r.product_id, r._id]));
  },

  /** The advertisements of these products (on any channel). */
  ofProducts(m: EntityManager, productIds: string[]): Promise<AdvertisementEntity[]> {
    if (productIds.length === 0) return Promise.resolve([]);
    return m
      .createQueryBuilder(AdvertisementEntity, 'a')
      .where('a.product_id IN (:...productIds)', { productIds: [...new Set(productIds)] })
      .getMany();
  },
};
