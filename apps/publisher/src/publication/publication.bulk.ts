import type { EntityManager } from 'typeorm';
import { newId } from '@pim/ids';
import { traceContextOf } from '@pim/logging';
import type { PublicationBatchRefusal } from '@pim/resources';
import type { ChannelEntity } from '../entities/channel.entity';
import { PublicationEntity } from '../entities/publication.entity';
import { track } from '../entities/publication.tracking';
import { readinessProblems } from '../channel/channel.readiness';
import { contentHash, type ProductSnapshot } from '../products/product.payload';
import { advertisementsRepository } from '../repositories/advertisements.repository';
import type { PublicationsRepository } from '../repositories/publications.repository';

/** What one page of a batch made. */
export interface BulkPage {
  created: number;
  refusals: PublicationBatchRefusal[];
}

/**
 * Publications of many products to one channel in the caller's transaction, by the rules of a
 * single one: each product must be ready for the channel (else it is refused, with why); each
 * ready one gets a publication ready_to_publish with its snapshot, its advertisement made or found,
 * and the older waiting publications of those advertisements superseded. Rows and events are
 * written a page at a time rather than one transaction each.
 */
export async function publishMany(
  m: EntityManager,
  repository: PublicationsRepository,
  channel: ChannelEntity,
  products: ProductSnapshot[],
  origin: { batchId: string; createdBy: string | null },
): Promise<BulkPage> {
  const refusals: PublicationBatchRefusal[] = [];
  const ready: ProductSnapshot[] = [];
  for (const product of products) {
    const problems = readinessProblems({ ...channel, language: channel.language ?? undefined }, product);
    if (problems.length === 0) ready.push(product);
    else
      refusals.push({
        product_id: String(product._id),
        code: String(product.code ?? ''),
        message: problems.map((p) => p.message).join('; '),
      });
  }
  if (ready.length === 0) return { created: 0, refusals };
  const now = new Date();
  // The batch run's span: the sends of its publications continue its trace.
  const trace = traceContextOf() ?? null;
  const records = ready.map((product) =>
    m.create(PublicationEntity, {
      _id: newId(),
      version: 1,
      created_at: now,
      updated_at: now,
      created_by_name: origin.createdBy,
      deleted: false,
      deleted_at: null,
      deleted_by: null,
      product_id: String(product._id),
      channel_id: channel._id,
      status: 'ready_to_publish',
      origin: 'bulk',
      batch_id: origin.batchId,
      tracking: [],
      product_snapshot: product,
      published_payload: null,
      publishment_url: null,
      attempts: 0,
      next_attempt_at: now,
      channel_code: channel.code,
      content_hash: contentHash(product),
      lease_until: null,
      lease_token: null,
      outcome_at: null,
      product_sync_due: false,
      source_event_id: null,
      trace_context: trace,
    } as unknown as PublicationEntity),
  );
  const ads = await advertisementsRepository.makeLatestMany(
    m,
    channel._id,
    records.map((r) => ({ productId: r.product_id, publicationId: r._id })),
  );
  for (const r of records) {
    r.advertisement_id = ads.get(r.product_id)!;
    track(r, 'PENDING', `Waiting to be sent to the channel '${channel.code}'`, [`batch_id=${origin.batchId}`], now);
  }
  await repository.supersedeAll(m, new Map(records.map((r) => [r.advertisement_id, r._id])));
  await repository.insert(m, records);
  await repository.notify(m);
  return { created: records.length, refusals };
}
