import type { EntityManager } from 'typeorm';
import { ConflictError, withLinks } from '@pim/errors';
import { WorkflowApprovalEntity } from '../entities/workflow-approval.entity';
import type { CatalogLink } from '../links/catalog.link';

/**
 * The workflow approval that governs a product, among the live, enabled ones that do not exclude
 * it (`exclude_products` always wins): the oldest that lists it in `included_products`, else the
 * oldest whose `filters` (non-empty) the product matches in the catalog, else the default one.
 * None: a 409 saying how to make one govern it.
 */
export async function governingApproval(
  m: EntityManager,
  catalog: CatalogLink,
  productId: string,
): Promise<WorkflowApprovalEntity> {
  const candidates = (
    await m.find(WorkflowApprovalEntity, {
      where: { deleted: false, enabled: true },
      order: { created_at: 'ASC', _id: 'ASC' },
    })
  ).filter((a) => !a.exclude_products.includes(productId));
  const included = candidates.find((a) => a.included_products.includes(productId));
  if (included) return included;
  for (const a of candidates) {
    const filters = (a.filters ?? {}) as Record<string, string | string[]>;
    if (Object.keys(filters).length > 0 && (await catalog.productMatches(productId, filters))) return a;
  }
  const fallback = candidates.find((a) => a.default);
  if (fallback) return fallback;
  throw new ConflictError(`No workflow approval governs product '${productId}'`, {
    title: 'No workflow approval',
    ...withLinks(
      (link) =>
        `Create an enabled workflow approval (${link({ method: 'POST', collection: 'workflow_approvals' })}) that is the default, lists the product in included_products or has filters it matches — and does not list it in exclude_products`,
    ),
    details: [
      { field: 'product_id', message: 'no enabled workflow approval includes it, matches it or is the default' },
    ],
  });
}
