import type { EntityManager } from 'typeorm';
import { ConflictError, ValidationError, stateConflict, withLinks } from '@pim/errors';
import { traceContextOf } from '@pim/logging';
import { declaredRecord, productOwnedAudience, requireLive } from '@pim/records';
import { Publication, type PublicationStatus } from '@pim/resources';
import type { ChannelEntity } from '../entities/channel.entity';
import { PublicationEntity } from '../entities/publication.entity';
import { readinessProblems } from '../channel/channel.readiness';
import type { CatalogLink } from '../links/catalog.link';
import { advertisementsRepository } from '../repositories/advertisements.repository';
import { channelsRepository } from '../repositories/channels.repository';
import type { PublicationsRepository } from '../repositories/publications.repository';
import { contentHash, type ProductSnapshot } from '../products/product.payload';
import { track } from '../entities/publication.tracking';

/** A 409 for a move the publication's state does not allow, naming both states. */
export function publicationNotNow(
  record: { _id: string; status: string },
  what: string,
  allowed: readonly PublicationStatus[],
  to?: PublicationStatus,
): ConflictError {
  return stateConflict('Publication', record, what, allowed, to);
}

/** A 400 naming what keeps a product from a channel. */
export function notReady(channel: ChannelEntity, productId: string, problems: { field: string; message: string }[]) {
  return new ValidationError(
    `The product '${productId}' is not ready for the channel '${channel.code}': ${problems.map((p) => p.message).join('; ')}`,
    {
      title: 'Product not ready for the channel',
      ...withLinks(
        (link) =>
          `Fill the attributes the channel requires (${link({ collection: 'products', id: productId })}), or enable the channel; ${link({ collection: 'channels', id: channel._id, sub: 'readiness', query: { product_id: productId } })} tells what is missing`,
      ),
      details: problems,
    },
  );
}

/** What creating a publication needs besides its table. */
export interface PublicationDeps {
  catalog: CatalogLink;
  publications: () => PublicationsRepository;
}

/** The product a publication is made of: the snapshot given with it (bulk, auto-republish), else the catalog's now. */
async function snapshotOf(deps: PublicationDeps, next: PublicationEntity): Promise<ProductSnapshot> {
  const given = next.product_snapshot as ProductSnapshot | null | undefined;
  const product = given ?? (await deps.catalog.product(next.product_id));
  if (!product || product._id !== next.product_id)
    throw new ValidationError(`No live product with _id '${next.product_id}'`, {
      title: 'Unknown product',
      ...withLinks((link) => `Use the _id of a live product from ${link({ collection: 'products' })}`),
      details: [{ field: 'product_id', message: `no live product has _id '${next.product_id}'` }],
    });
  return product;
}

/**
 * Fills a new publication: the channel is live and enabled and the product has what it requires;
 * the snapshot is the product now; the advertisement of the pair is made or found (its row lock
 * orders creations of the pair), older waiting publications of it are superseded, and the senders
 * are woken at commit.
 */
async function prepare(deps: PublicationDeps, m: EntityManager, next: PublicationEntity): Promise<void> {
  await requireLive(m, { table: 'channels', collection: 'channels' }, [{ field: 'channel_id', id: next.channel_id }]);
  const [channel] = await channelsRepository.live(m, [next.channel_id]);
  const product = await snapshotOf(deps, next);
  const problems = readinessProblems({ ...channel, language: channel.language ?? undefined }, product);
  if (problems.length > 0) throw notReady(channel, next.product_id, problems);
  const now = new Date();
  Object.assign(next, {
    product_snapshot: product,
    content_hash: contentHash(product),
    channel_code: channel.code,
    status: 'ready_to_publish',
    origin: next.origin ?? 'api',
    attempts: 0,
    next_attempt_at: now,
    product_sync_due: false,
    // The write's span: each attempt to send it continues this trace.
    trace_context: traceContextOf() ?? null,
  });
  track(next, 'PENDING', `Waiting to be sent to the channel '${channel.code}'`, [], now);
  next.advertisement_id = await advertisementsRepository.makeLatest(m, next.product_id, next.channel_id, next._id);
  await deps.publications().supersede(m, next.advertisement_id, next._id);
  await deps.publications().notify(m);
}

/** Publications a batch made whole itself, for a page at once (`publishMany`): their rules ran there. */
const madeWhole = new WeakSet<PublicationEntity>();

/** Marks a new publication as made whole by its batch: `beforeWrite` leaves it as it is. */
export function markMadeWhole(record: PublicationEntity): void {
  madeWhole.add(record);
}

/**
 * Publications on the record engine. Created ready with the product's snapshot (refused, naming
 * what lacks, when the product is not ready for the channel); then moved only by the sender
 * (publishing, published, failed) and by retry. Identified by `_id` alone; never replaced or
 * patched. One being sent right now is not deleted. A caller restricted by users groups sees,
 * deletes and retries only the publications of products the catalog says they see
 * (docs/decisions/access.md); the others are a 404.
 */
export const publicationRecord = (deps: PublicationDeps) =>
  declaredRecord(Publication, {
    entity: PublicationEntity,
    handle: '_id',
    audience: productOwnedAudience({
      productIds: (m, about) => deps.publications().productIds(m, about),
      visible: (ids) => deps.catalog.visibleProducts(ids),
    }),
    hooks: {
      async beforeWrite(m, next, prev) {
        if (prev) return; // publications are never changed by a caller after creation
        if (madeWhole.has(next)) return;
        await prepare(deps, m, next);
      },
      async beforeDelete(_m, record) {
        if (record.status === 'publishing' && record.lease_until !== null && record.lease_until > new Date())
          throw publicationNotNow(
            record,
            'a publication being sent right now is not deleted; wait until its request ends',
            ['ready_to_publish', 'published', 'failed'],
          );
      },
    },
  });
