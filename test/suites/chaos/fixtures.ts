import type { ChaosApi, Json } from './api';

/** Ana approves product changes; her key decides the approvals. */
export const ANA = '6740a1b2c3d4e5f6012345a1';

/** An order's statuses in the order the writer moves it, the last one final. */
export const ORDER_PATH = ['new', 'picked', 'packed', 'shipped', 'delivered'];

/** What the writer needs that exists before the chaos starts. */
export interface Fixtures {
  /** Every collection, each with a webhook to the receiver. */
  collections: string[];
  receiverUrl: string;
  /** Ana's key (product approvals). */
  anaKey: string;
  categoryTreeId: string;
  /** The attribute group an approval proposes. */
  extrasGroupId: string;
  /** Products exports select (never changed). */
  exportProducts: { id: string; code: string }[];
}

async function must(api: ChaosApi, method: string, path: string, body: unknown): Promise<Json> {
  const a = await api.write({ method, path, body }, 60_000);
  if (a.status < 200 || a.status >= 300)
    throw new Error(`setting up: ${method} ${path} answered ${a.status} ${a.error ?? JSON.stringify(a.json)}`);
  return a.json;
}

/**
 * Everything the writer builds on, made through the API before any kill: a webhook on every
 * collection to the receiver (the `webhooks` one first, so every later event has a webhook),
 * the order workflow, an approvals workflow with Ana as its approver, and the products exports select.
 */
export async function makeFixtures(api: ChaosApi, receiverUrl: string, exportProducts: number): Promise<Fixtures> {
  // One page of the largest size holds every collection.
  const listed = (await api.read('/collections?limit=100')).json.data as { name: string }[];
  const collections = ['webhooks', ...listed.map((c) => c.name).filter((n) => n !== 'webhooks')];
  for (const collection of collections) await must(api, 'PUT', '/webhooks', { collection, url: receiverUrl });

  await must(api, 'POST', '/users-groups', {
    source_id: 'sso',
    name: 'Approvers',
    users: [{ id: ANA, name: 'Ana' }],
    has_full_product_access: true,
  });
  await must(api, 'POST', '/workflow-approvals', {
    code: 'changes',
    name: 'Changes',
    enabled: true,
    steps: [{ name: 'Owner', order: 1, approvers: [ANA] }],
  });
  const ana = await must(api, 'POST', '/api-keys', {
    name: 'Ana',
    scopes: ['product_approvals:read', 'product_approvals:write', 'products:read'],
    user_id: ANA,
    user_name: 'Ana',
  });
  await must(api, 'POST', '/workflows', {
    code: 'fulfilment',
    name: 'Fulfilment',
    enabled: true,
    steps: [
      {
        name: 'Picking',
        code: 'picking',
        status: [
          { code: 'new', name: 'New', moves_to: ['picked'] },
          { code: 'picked', name: 'Picked', moves_to: ['packed'] },
          { code: 'packed', name: 'Packed', moves_to: ['shipped'] },
        ],
      },
      {
        name: 'Delivery',
        code: 'delivery',
        status: [
          { code: 'shipped', name: 'Shipped', moves_to: ['delivered'] },
          { code: 'delivered', name: 'Delivered', outcome: 'COMPLETED' },
        ],
      },
    ],
  });
  const tree = await must(api, 'POST', '/category-trees', { code: 'chaos', name: { en: 'Chaos' } });
  const extras = await must(api, 'POST', '/attribute-groups', { key: 'extras', name: { en: 'Extras' } });
  const made: { id: string; code: string }[] = [];
  for (let i = 0; i < exportProducts; i++) {
    const code = `EXP-${String(i).padStart(3, '0')}`;
    const p = await must(api, 'POST', '/products', { code, name: { en: `Exported ${i}` }, type: 'simple' });
    made.push({ id: p._id as string, code });
  }
  return {
    collections,
    receiverUrl,
    anaKey: ana.key as string,
    categoryTreeId: tree._id as string,
    extrasGroupId: extras._id as string,
    exportProducts: made,
  };
}
