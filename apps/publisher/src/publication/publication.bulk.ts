import type { EntityManager } from 'typeorm';
import { newId } from '@pim/ids';
import type { StoredTraceContext } from '@pim/logging';
import type { PublicationBatchRefusal } from '@pim/resources';
import type { ChannelEntity } from '../entities/channel.entity';
import { track } from '../entities/publication.tracking';
import { readinessProblems } from '../channel/channel.readiness';
import { contentHash, type ProductSnapshot } from '../products/product.payload';
import { advertisementsRepository } from '../repositories/advertisements.repository';
import type { PublicationsRepository } from '../repositories/publications.repository';
import { markMadeWhole } from './publication.resource';

/** What one page of a batch made. */
export interface BulkPage {
  created: number;
  refusals: PublicationBatchRefusal[];
}

/**
 * Publications of many products to one channel in the caller's transaction, by the rules of a
 * single one: each product must be ready for the channel (else it is refused, with why); each
 * ready one gets a publication ready_to_publish with its snapshot, its advertisement made or found,
 * and the older waiting publications of those advertisements superseded. Set-based, through the
 * engine: the advertisements in one statement, the superseded publications in one `mutateMany`,
 * the new ones in one `writeMany` (one COPY of rows, one of events).
 */
export async function publishMany(
  m: EntityManager,
  repository: PublicationsRepository,
  channel: ChannelEntity,
  products: ProductSnapshot[],
  origin: {
    batchId: string;
    createdBy: string | null;
    /** The batch run's span (its sends continue the run's trace), taken outside the engine's own spans. */
    trace: StoredTraceContext | null;
  },
): Promise<BulkPage> {
  const refusals: PublicationBatchRefusal[] = [];
  const ready: ProductSnapshot[] = [];
  for (const product of products) {
    const problems = readinessProblems({ ...channel, language: channel.language ?? undefined }, product);
    if (problems.length === 0) ready.push(product);
    else refusals.push(refusal(product, problems.map((p) => p.message).join('; ')));
  }
  if (ready.length === 0) return { created: 0, refusals };
  const now = new Date();
  // Their ids first: the advertisements name them as their latest, the superseded ones name them too.
  const ids = ready.map(() => newId());
  const ads = await advertisementsRepository.makeLatestMany(
    m,
    channel._id,
    ready.map((product, i) => ({ productId: String(product._id), publicationId: ids[i] })),
  );
  const adOf = (product: ProductSnapshot) => ads.get(String(product._id))!;
  await repository.supersedeAll(m, new Map(ready.map((product, i) => [adOf(product), ids[i]])));
  const written = await repository.publications.inTransaction(m).writeMany(
    'create',
    ready.map((product) => ({ input: { product_id: String(product._id), channel_id: channel._id } })),
    {
      fill: (record, i) => {
        const product = ready[i];
        Object.assign(record, {
          _id: ids[i],
          created_by_name: origin.createdBy,
          advertisement_id: adOf(product),
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
          trace_context: origin.trace,
        });
        track(
          record,
          'PENDING',
          `Waiting to be sent to the channel '${channel.code}'`,
          [`batch_id=${origin.batchId}`],
          now,
        );
        markMadeWhole(record);
      },
    },
  );
  // Every input was checked above; a refusal now (after the advertisements named it) fails the page whole.
  const refused = written.find((o) => o.status === 'failed');
  if (refused) throw refused.error;
  await repository.notify(m);
  return { created: written.length, refusals };
}

/** A product the batch does not publish, and why. */
function refusal(product: ProductSnapshot, message: string): PublicationBatchRefusal {
  return { product_id: String(product._id), code: String(product.code ?? ''), message };
}
