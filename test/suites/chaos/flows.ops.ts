import type { Json } from './api';
import { createProduct } from './catalog.ops';
import { ORDER_PATH } from './fixtures';
import type { Lane, Owned } from './lane';

/** Places an order under the fulfilment workflow. */
export async function createOrder(lane: Lane): Promise<void> {
  const code = `O-${lane.nextName()}`;
  const made = await lane.create(
    'orders.create',
    'orders',
    '/orders',
    {
      code,
      external_code: `ext-${code}`,
      channel: { code: 'marketplace' },
      customer: { email: 'chaos@example.com' },
      items_count: 1,
    },
    async () => {
      const page = await lane.api.read(`/orders?code=${encodeURIComponent(code)}`, lane.opts.writeDeadlineMs);
      return (page.json.data as Json[] | undefined)?.[0];
    },
    { expect: { code, status_code: ORDER_PATH[0] } },
  );
  if (made)
    lane.orders.push({
      collection: 'orders',
      path: `/orders/${made._id}`,
      id: made._id as string,
      version: made.version as number,
      at: 0,
    });
}

/** Moves one of the lane's orders to its next status. */
export async function moveOrder(lane: Lane): Promise<void> {
  const open = lane.orders.filter((o) => o.at < ORDER_PATH.length - 1);
  if (open.length === 0) return createOrder(lane);
  const order = lane.random.pick(open);
  const to = ORDER_PATH[order.at + 1];
  const { record } = await lane.change(
    'orders.move',
    order,
    { method: 'POST', path: `${order.path}/status`, body: { status_code: to } },
    (now) => now.status_code === to,
    { status_code: to },
  );
  if (record) order.at += 1;
}

/**
 * A product approval from proposal to decision: a product of its own (so its versions tell how
 * often the change was applied), Ana's proposal of an attribute group, then her approval (or, one
 * time in four, her rejection).
 */
export async function approvalFlow(lane: Lane): Promise<void> {
  const made = await createProduct(lane);
  if (!made) return;
  // The product is the approval's now: no other write of this lane touches it again, and its
  // version after the decision is checked with the approval's.
  const product = lane.owned.pop()!;
  lane.ledger.expected.delete(product.id);
  const groups = [lane.fixtures.extrasGroupId];
  const key = lane.fixtures.anaKey;
  const proposal = await lane.create(
    'product_approvals.create',
    'product_approvals',
    '/product-approvals',
    { product_id: product.id, attribute_groups: groups },
    async () => {
      const page = await lane.api.read(`/product-approvals?product_id=${product.id}`, lane.opts.writeDeadlineMs, key);
      return (page.json.data as Json[] | undefined)?.[0];
    },
    { key },
  );
  if (!proposal) return;
  const decision = lane.random.chance(0.75) ? 'approve' : 'reject';
  const approval: Owned = {
    collection: 'product_approvals',
    path: `/product-approvals/${proposal._id}`,
    id: proposal._id as string,
    version: proposal.version as number,
  };
  const status = decision === 'approve' ? 'approved' : 'rejected';
  const { record } = await lane.change(
    `product_approvals.${decision}`,
    approval,
    { method: 'POST', path: `${approval.path}/${decision}`, body: {}, key },
    (now) => now.status === status,
  );
  if (record)
    lane.ledger.approvals.push({
      id: approval.id,
      decision,
      productId: product.id,
      productVersion: product.version,
      attributeGroups: groups,
    });
}
