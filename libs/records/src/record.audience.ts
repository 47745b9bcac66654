import type { EntityManager } from 'typeorm';
import { NotFoundError } from '@pim/errors';
import { currentAccess, type ProductAccess, type RunAs } from '@pim/logging';
import type { RecordEntity } from './record.entity';
import type { Audience, RecordView } from './record.resource';

/** How an app whose records belong to products (`product_id`) finds which of them a caller sees. */
export interface ProductOwnedSight {
  /** The product ids of the live records (of `about` alone, live or not, when given): the owner's repository query. */
  productIds(m: EntityManager, about?: readonly string[]): Promise<string[]>;
  /** Which of these products the current caller sees: the catalog, asked with the caller's access. */
  visible(productIds: string[]): Promise<string[]>;
}

/**
 * The 404 of a record (a relation, an approval, a publication) on a product the caller cannot see,
 * read or written: the same answer as for no product, so it tells nothing of products out of sight.
 */
export const productOutOfSight = (productId: string) =>
  new NotFoundError(`No product with _id '${productId}'`, {
    title: 'Product not found',
    solution: 'Name a product you can see: list the products to find its _id',
    details: [{ field: 'product_id', message: 'names no product you can see' }],
  });

/**
 * The audience of records that belong to a product another app owns (product approvals,
 * publications): a caller restricted by users groups sees only the records of the products they
 * see (docs/decisions/access.md), so those of other products are absent from lists and totals and
 * are a 404 by id, for reads and writes alike. The products are asked about once per call: the
 * answers are kept with the call's access, and a call about some records asks about theirs alone.
 */
export function productOwnedAudience<E extends RecordEntity & { product_id: string }, V extends RecordView>(
  sight: ProductOwnedSight,
): (m: EntityManager, about?: readonly string[]) => Promise<Audience<E, V> | undefined> {
  const answers = new WeakMap<ProductAccess, Map<string, boolean>>();
  return async (m, about) => {
    const access = currentAccess();
    if (!access || access.all_products) return undefined;
    let known = answers.get(access);
    if (!known) {
      known = new Map();
      answers.set(access, known);
    }
    const ids = [...new Set(await sight.productIds(m, about))];
    const asked = ids.filter((id) => !known.has(id));
    if (asked.length > 0) {
      const seen = new Set(await sight.visible(asked));
      for (const id of asked) known.set(id, seen.has(id));
    }
    const seen = ids.filter((id) => known.get(id) === true);
    return {
      where:
        seen.length === 0
          ? { sql: 'false', params: {} }
          : { sql: 't.product_id = ANY(:seen_product_ids)', params: { seen_product_ids: seen } },
      outOfSight: (record) => productOutOfSight(record.product_id),
    };
  };
}

/**
 * The audience of records a job keeps its caller on (`run_as`: exports, imports, publication
 * batches): a caller restricted by users groups (their access present and not every product) sees
 * only the records they set to work themselves (`run_as.user_id` is theirs), so others are absent
 * from lists and totals and are a 404 by id, for reads and writes alike — the same 404 as for no
 * record. Reason: such a record holds what its creator saw (a file, counts, refusals naming
 * products), which need not be what this caller may see. Records kept with no caller (`run_as`
 * NULL: unrestricted work, or written before the column) are seen by unrestricted callers alone.
 */
export function runAsOwnedAudience<E extends RecordEntity & { run_as: RunAs | null }, V extends RecordView>(): (
  m: EntityManager,
  about?: readonly string[],
) => Promise<Audience<E, V> | undefined> {
  return async () => {
    const access = currentAccess();
    if (!access || access.all_products) return undefined;
    return { where: { sql: `t.run_as ->> 'user_id' = :run_as_user_id`, params: { run_as_user_id: access.user_id } } };
  };
}
