import type { DataSource } from 'typeorm';
import { ConflictError, ValidationError } from '@pim/errors';
import type { EventEnvelope } from '@pim/events';
import { contextFromTraceparent, withContext, type Logger } from '@pim/logging';
import type { PublisherRecords } from '../publisher.records';
import { contentHash, type ProductSnapshot } from '../products/product.payload';
import { advertisementsRepository, type PublishedAdvertisement } from '../repositories/advertisements.repository';
import { channelsRepository } from '../repositories/channels.repository';

/** The event that makes a new publication of a published product. */
export const PRODUCT_UPDATED = 'products.updated';

/** What happened to one channel's listing for one event, for logs and tests. */
export type RepublishOutcome = 'created' | 'unchanged' | 'older' | 'not_ready' | 'duplicate';

/**
 * Publishes changed products again on the channels that ask for it (`auto_republish`): for a
 * `products.updated` event of a product some channel accepted, each such channel (live, enabled)
 * gets a new publication with the event's product as its snapshot, unless the channel already has
 * (or is about to get) that content, or holds a newer version. A change of where the product is
 * published alone (the catalog recording an outcome) changes no content, so it publishes nothing.
 * An event handed out again makes nothing new (one publication per event and channel).
 */
export class AutoRepublisher {
  constructor(
    private readonly ds: DataSource,
    private readonly records: Pick<PublisherRecords, 'publications' | 'repository'>,
    private readonly logger: Logger,
  ) {}

  /**
   * A batch of events: three queries tell which products a channel with auto_republish lists (most
   * batches have none: a product change, or the catalog recording outcomes of a bulk publication);
   * only their events are looked at one by one.
   */
  async handle(events: EventEnvelope[]): Promise<void> {
    const updates = events.filter((e) => e.type === PRODUCT_UPDATED);
    const ids = [...new Set(updates.map((e) => String((e.data as ProductSnapshot)?._id ?? '')))];
    const ads = await this.publishedOf(ids);
    if (ads.length === 0) return;
    const channels = await channelsRepository.republishing(
      this.ds.manager,
      ads.map((a) => a.channel_id),
    );
    const listed = new Set(ads.filter((a) => channels.some((c) => c._id === a.channel_id)).map((a) => a.product_id));
    if (listed.size === 0) return;
    // Each event's publications are made in its consumer span's trace (a batch of several events
    // runs outside them), so their sends continue it.
    for (const e of updates)
      if (listed.has(String((e.data as ProductSnapshot)._id)))
        await withContext(contextFromTraceparent(e.traceparent, e.tracestate), () => this.republish(e));
  }

  /** The advertisements of these products some channel accepted, each with what it accepted last. */
  private async publishedOf(productIds: string[]): Promise<PublishedAdvertisement[]> {
    const ads = await advertisementsRepository.ofProducts(this.ds.manager, productIds);
    const hashes = await this.records.repository.lastPublishedHashes(
      this.ds.manager,
      ads.map((a) => a._id),
    );
    return ads.flatMap((a) => {
      const published_hash = hashes.get(a._id);
      return published_hash === undefined ? [] : [{ ...a, published_hash }];
    });
  }

  /** The publications one event makes, by channel. */
  async republish(e: EventEnvelope): Promise<Map<string, RepublishOutcome>> {
    const outcomes = new Map<string, RepublishOutcome>();
    const product = e.data as ProductSnapshot;
    const productId = String(product._id ?? '');
    const ads = await this.publishedOf([productId]);
    if (ads.length === 0) return outcomes;
    const channels = await channelsRepository.republishing(
      this.ds.manager,
      ads.map((a) => a.channel_id),
    );
    const hash = contentHash(product);
    const version = Number(product.version ?? 0);
    for (const channel of channels) {
      const ad = ads.find((a) => a.channel_id === channel._id)!;
      const latest = await this.records.repository.contentOf(ad.latest_publication_id);
      if (ad.published_hash === hash || latest?.hash === hash) {
        outcomes.set(channel._id, 'unchanged');
        continue;
      }
      if (latest && latest.version >= version) {
        outcomes.set(channel._id, 'older');
        continue;
      }
      outcomes.set(channel._id, await this.create(e, productId, channel._id, product));
    }
    return outcomes;
  }

  private async create(
    e: EventEnvelope,
    productId: string,
    channelId: string,
    product: ProductSnapshot,
  ): Promise<RepublishOutcome> {
    try {
      const { view } = await this.records.publications.createRecord(
        { product_id: productId, channel_id: channelId },
        {
          fill: (r) => {
            r.origin = 'auto_republish';
            r.source_event_id = e.id;
            r.product_snapshot = product;
          },
        },
      );
      this.logger.info(
        { publication_id: view._id, product_id: productId, channel_id: channelId, event_id: e.id },
        'a changed product is published again (auto_republish)',
      );
      return 'created';
    } catch (err) {
      if (err instanceof ConflictError) return 'duplicate';
      if (err instanceof ValidationError) {
        // The product no longer has what the channel requires: the channel keeps the version it has.
        this.logger.warn(
          { product_id: productId, channel_id: channelId, event_id: e.id, reason: err.message },
          'a changed product is not published again: it is not ready for the channel',
        );
        return 'not_ready';
      }
      throw err;
    }
  }
}
