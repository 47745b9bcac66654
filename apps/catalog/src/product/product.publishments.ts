import { ValidationError } from '@pim/errors';
import type { RecordService } from '@pim/records';
import type { ProductInput, ProductView } from '@pim/resources';
import type { ProductEntity } from '../entities/product.entity';

/** What a product shows of its publications. */
export interface PublicationFields {
  published: boolean;
  last_published_at: Date | null;
  last_publishment_id: string | null;
  publishments: { channel: string; published_at: string; status: string }[];
}

/** The outcome of one publication of the product on a channel. */
export interface PublishmentOutcome {
  channel: string;
  status: 'PUBLISHED' | 'FAILED';
  /** ISO 8601 UTC. */
  at: string;
  publication_id: string;
}

const OUTCOMES = ['PUBLISHED', 'FAILED'];

/** Checks an outcome another app sent (the publisher). */
export function checkOutcome(o: { product_id?: string; channel?: string; status?: string; at?: string }, i: number) {
  const problems: string[] = [];
  if (!/^[0-9a-f]{24}$/.test(o.product_id ?? '')) problems.push('product_id must be a record id');
  if (!o.channel) problems.push('channel is required');
  if (!OUTCOMES.includes(o.status ?? '')) problems.push(`status must be ${OUTCOMES.join(' or ')}`);
  if (!o.at || Number.isNaN(Date.parse(o.at))) problems.push('at must be an ISO 8601 date');
  if (problems.length > 0)
    throw new ValidationError(`outcomes[${i}]: ${problems.join('; ')}`, {
      details: problems.map((message) => ({ field: `outcomes.${i}`, message })),
    });
}

/**
 * Merges one outcome into the product's publication fields; false when it changes nothing.
 *
 * A channel gets an entry once the product was published there: `published_at` is its last
 * success and `status` its latest outcome (FAILED when a later publication failed, while the
 * channel still shows the earlier one). A failure on a channel with no success adds nothing.
 * `published` is whether any channel lists the product; `last_published_at` and
 * `last_publishment_id` name the latest success. An outcome older than what the entry shows is
 * left out, so outcomes recorded out of order end as the latest one says.
 */
export function mergePublishment(p: PublicationFields, o: PublishmentOutcome): boolean {
  const at = new Date(o.at).toISOString();
  const index = p.publishments.findIndex((e) => e.channel === o.channel);
  const entry = index >= 0 ? p.publishments[index] : null;
  if (entry && at < entry.published_at) return false;
  if (o.status === 'FAILED') {
    if (!entry || entry.status === 'FAILED') return false;
    p.publishments[index] = { ...entry, status: 'FAILED' };
    return true;
  }
  const next = { channel: o.channel, published_at: at, status: 'PUBLISHED' };
  if (entry) p.publishments[index] = next;
  else p.publishments.push(next);
  p.published = true;
  if (p.last_published_at === null || at >= p.last_published_at.toISOString()) {
    p.last_published_at = new Date(at);
    p.last_publishment_id = o.publication_id;
  }
  return true;
}

/** Most outcomes one call may carry. */
export const MAX_OUTCOMES = 1_000;

/** An outcome as another app sends it. */
export interface OutcomeInput extends PublishmentOutcome {
  product_id: string;
}

/**
 * Records publication outcomes on their products, set-based through the engine (`mutateMany`):
 * all of one call in one transaction, the products locked in `_id` order, each merged under its
 * row lock, every changed one written in one statement with its own `products.updated` event (one
 * COPY for them all). Answers the products that are not live.
 */
export class ProductPublishments {
  constructor(private readonly products: RecordService<ProductEntity, ProductView, ProductInput>) {}

  async record(outcomes: OutcomeInput[]): Promise<string[]> {
    if (outcomes.length > MAX_OUTCOMES)
      throw new ValidationError(`At most ${MAX_OUTCOMES} outcomes per call; got ${outcomes.length}`);
    outcomes.forEach(checkOutcome);
    const byProduct = new Map<string, PublishmentOutcome[]>();
    for (const o of outcomes) {
      const list = byProduct.get(o.product_id) ?? [];
      list.push({ channel: o.channel, status: o.status, at: o.at, publication_id: o.publication_id });
      byProduct.set(o.product_id, list);
    }
    const ids = [...byProduct.keys()].sort();
    const written = await this.products.mutateMany(
      ids.map((id) => ({ id })),
      (record) => {
        const mine = byProduct.get(record._id)!.sort((a, b) => a.at.localeCompare(b.at));
        // Every outcome merged (no short cut): changed when any of them changed the product.
        return mine.map((o) => mergePublishment(record, o)).some(Boolean);
      },
    );
    const missing: string[] = [];
    for (const o of written) {
      if (o.status !== 'failed') continue;
      if (o.error?.kind !== 'not_found') throw o.error;
      missing.push(ids[o.index]);
    }
    return missing;
  }
}
