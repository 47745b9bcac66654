import type { EntityManager } from 'typeorm';
import { ConflictError, ValidationError, withLinks } from '@pim/errors';
import { declaredRecord, liveIds, productOwnedAudience } from '@pim/records';
import {
  PRODUCT_ITEM_TYPES,
  PROPOSED_CHANGES,
  ProductApproval,
  type ProductApprovalStep,
  type ProposedList,
  type WorkflowApprovalStepInput,
} from '@pim/resources';
import { ProductApprovalEntity } from '../entities/product-approval.entity';
import type { CatalogLink } from '../links/catalog.link';
import { approvalProductIds } from '../repositories/product-approvals.repository';
import { governingApproval } from './product-approval.governing';

/** The steps of a workflow approval in the order they decide. */
export const stepsInOrder = (steps: WorkflowApprovalStepInput[]): ProductApprovalStep[] =>
  [...steps]
    .sort((a, b) => a.order - b.order)
    .map((s) => ({ step_id: s.step_id!, name: s.name, order: s.order, approvers: s.approvers }));

/** `{step_id, name, order}` of a step: what `current_step` shows. */
export const currentStepOf = (s: ProductApprovalStep) => ({ step_id: s.step_id, name: s.name, order: s.order });

/** A 409 for a write on an approval some step has decided. */
function decidedAlready(record: ProductApprovalEntity, what: string): ConflictError {
  const state =
    record.status === 'pending' ? `pending at step ${(record.current_step as { order: number }).order}` : record.status;
  return new ConflictError(`Product approval '${record._id}' is ${state}: ${what}`, {
    title: 'Product approval decided',
    ...withLinks(
      (link) =>
        `Create a new product approval (${link({ method: 'POST', collection: 'product_approvals' })}) for another change`,
    ),
    details: [{ field: 'status', message: `is ${record.status}, with ${record.decisions.length} decision(s) taken` }],
  });
}

/**
 * Refuses proposed items naming products that are not live or that the caller cannot see, each
 * as an unknown product (400 naming `<list>.<i>.id`): applied later as the platform's work, an
 * unseen item would link the caller's product to one they cannot read, and any other answer
 * (a 403, a kit/service type check) would tell them it exists.
 */
async function refuseUnseenItems(catalog: CatalogLink, next: ProductApprovalEntity): Promise<void> {
  const lists = (Object.keys(PROPOSED_CHANGES) as ProposedList[]).filter((list) =>
    PRODUCT_ITEM_TYPES.includes(PROPOSED_CHANGES[list]),
  );
  const itemsOf = (list: ProposedList) => ((next[list] ?? []) as { id: string }[]) ?? [];
  const ids = [...new Set(lists.flatMap((list) => itemsOf(list).map((item) => item.id)))];
  if (ids.length === 0) return;
  const seen = new Set(await catalog.visibleProducts(ids));
  const details = lists.flatMap((list) =>
    itemsOf(list).flatMap((item, i) =>
      seen.has(item.id) ? [] : [{ field: `${list}.${i}.id`, message: `no live product has _id '${item.id}'` }],
    ),
  );
  if (details.length === 0) return;
  throw new ValidationError(
    details.length === 1
      ? `Product approval: ${details[0].field} ${details[0].message}`
      : `Product approval names ${details.length} unknown products`,
    {
      title: 'Unknown product',
      ...withLinks((link) => `Name live products you can see, by their _id from ${link({ collection: 'products' })}`),
      details,
    },
  );
}

/** Checks the product and the related approvals, then takes the governing workflow approval's steps. */
async function prepare(m: EntityManager, catalog: CatalogLink, next: ProductApprovalEntity): Promise<void> {
  if (!(await catalog.productExists(next.product_id))) {
    throw new ValidationError(`No live product with _id '${next.product_id}'`, {
      title: 'Unknown product',
      ...withLinks((link) => `Use the _id of a live product from ${link({ collection: 'products' })}`),
      details: [{ field: 'product_id', message: `no live product has _id '${next.product_id}'` }],
    });
  }
  await refuseUnseenItems(catalog, next);
  const related = next.product_approvals.filter((id) => id !== next._id);
  const live = await liveIds(m, 'product_approvals', related);
  const missing = related.filter((id) => !live.has(id));
  if (missing.length > 0 || related.length !== next.product_approvals.length) {
    throw new ValidationError('product_approvals names approvals that are not live (or this one)', {
      title: 'Unknown product approval',
      details: next.product_approvals.flatMap((id, i) =>
        id === next._id
          ? [{ field: `product_approvals.${i}`, message: 'must not be the approval itself' }]
          : missing.includes(id)
            ? [{ field: `product_approvals.${i}`, message: `no live product approval has _id '${id}'` }]
            : [],
      ),
    });
  }
  const governing = await governingApproval(m, catalog, next.product_id);
  const steps = stepsInOrder(governing.steps as WorkflowApprovalStepInput[]);
  if (steps.length === 0) {
    throw new ConflictError(`Workflow approval '${governing.code}' has no steps`, {
      title: 'Workflow approval without steps',
      ...withLinks(
        (link) =>
          `Give it at least one step with approvers (${link({ method: 'PATCH', collection: 'workflow_approvals', id: governing._id })})`,
      ),
      details: [
        { field: 'product_id', message: `is governed by workflow approval '${governing.code}', which has no steps` },
      ],
    });
  }
  Object.assign(next, {
    workflow_approval_id: governing._id,
    steps,
    current_step: currentStepOf(steps[0]),
    status: 'pending',
    decisions: [],
    decided_at: null,
    application: null,
    apply_after: null,
  });
}

/**
 * Product approvals on the record engine. A write names the product and the changes proposed;
 * the owner checks the product is live in the catalog, finds the workflow approval that governs
 * it and copies its steps (so later edits of that workflow approval do not move approvals under
 * way). Proposals change only before the first decision; an approved one is never deleted (it is
 * the record of a change to the catalog). Identified by `_id` alone (no other field is unique).
 * A caller restricted by users groups sees, changes and decides only the approvals of products
 * the catalog says they see (docs/decisions/access.md); the others are a 404.
 */
export const productApprovalRecord = (catalog: CatalogLink) =>
  declaredRecord(ProductApproval, {
    entity: ProductApprovalEntity,
    handle: '_id',
    audience: productOwnedAudience({
      productIds: approvalProductIds,
      visible: (ids) => catalog.visibleProducts(ids),
    }),
    hooks: {
      async beforeWrite(m, next, prev) {
        if (prev && (prev.status !== 'pending' || prev.decisions.length > 0))
          throw decidedAlready(prev, 'its proposal can no longer change');
        await prepare(m, catalog, next);
      },
      async beforeDelete(_m, record) {
        if (record.status === 'approved') throw decidedAlready(record, 'an approved product approval is kept');
      },
    },
  });
