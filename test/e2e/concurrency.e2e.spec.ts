import document from '../../libs/api-client/openapi.json';
import { eventually, startE2E, type E2E } from './platform';

type Json = Record<string, unknown>;
type Api = E2E['api'];

/** How many writes race each time. */
const RACERS = 8;
const ANA = '6740a1b2c3d4e5f6012345c1';

/**
 * A record of every kind a conditional write (`If-Match`) can change: how to make one (its path)
 * and the i-th racer's change. The census test below keeps this list equal to the document's.
 */
interface Kind {
  make(api: Api, n: number): Promise<string>;
  change(i: number): Json;
}

let seq = 0;
const code = (prefix: string) => `${prefix}_${++seq}`;

async function created(api: Api, path: string, body: Json): Promise<string> {
  const r = await api('POST', path, body);
  if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(r.json)}`);
  return `${path}/${r.json._id as string}`;
}

const named = (i: number): Json => ({ name: { en: `Racer ${i}` } });
const plainNamed = (i: number): Json => ({ name: `Racer ${i}` });

const KINDS: Record<string, Kind> = {
  '/api/v1/webhooks/{id}': {
    make: (api) => created(api, '/api/v1/webhooks', { collection: 'brands', url: 'https://example.com/hook' }),
    change: (i) => ({ url: `https://example.com/hook/${i}` }),
  },
  '/api/v1/brands/{id}': {
    make: (api) => created(api, '/api/v1/brands', { code: code('brand'), name: { en: 'Brand' } }),
    change: named,
  },
  '/api/v1/category-trees/{id}': {
    make: (api) => created(api, '/api/v1/category-trees', { code: code('tree'), name: { en: 'Tree' } }),
    change: named,
  },
  '/api/v1/categories/{id}': {
    make: async (api) => {
      const tree = await created(api, '/api/v1/category-trees', { code: code('tree'), name: { en: 'Tree' } });
      return created(api, '/api/v1/categories', {
        code: code('category'),
        name: { en: 'Category' },
        category_tree_id: tree.split('/').pop(),
      });
    },
    change: named,
  },
  '/api/v1/families/{id}': {
    make: (api) => created(api, '/api/v1/families', { code: code('family'), name: { en: 'Family' } }),
    change: named,
  },
  '/api/v1/catalogs/{id}': {
    make: (api) => created(api, '/api/v1/catalogs', { code: code('catalog'), name: { en: 'Catalog' } }),
    change: named,
  },
  '/api/v1/attributes/{id}': {
    make: (api) => created(api, '/api/v1/attributes', attribute('text')),
    change: named,
  },
  '/api/v1/attributes/{id}/options/{optionId}': {
    make: async (api) => {
      const path = await created(api, '/api/v1/attributes', attribute('select'));
      return created(api, `${path}/options`, { value: code('option'), label: { en: 'Option' } });
    },
    change: (i) => ({ label: { en: `Racer ${i}` } }),
  },
  '/api/v1/attribute-groups/{id}': {
    make: (api) => created(api, '/api/v1/attribute-groups', { key: code('group'), name: { en: 'Group' } }),
    change: named,
  },
  '/api/v1/products/{id}': {
    make: (api) => created(api, '/api/v1/products', product('simple')),
    change: named,
  },
  '/api/v1/product-relations/{id}': {
    make: async (api) => {
      const kit = (await created(api, '/api/v1/products', product('kit'))).split('/').pop();
      return created(api, '/api/v1/product-relations', {
        type: 'kit_products',
        product_id: kit,
        kit_products: [{ id: await partId(api), quantity: 1 }],
      });
    },
    change: (i) => ({ kit_products: [{ id: parts[0], quantity: i + 1 }] }),
  },
  '/api/v1/users-groups/{id}': {
    make: (api) => created(api, '/api/v1/users-groups', { source_id: 'sso', name: code('group'), users: [] }),
    change: (i) => ({ description: `Racer ${i}` }),
  },
  '/api/v1/workflows/{id}': {
    make: (api) => created(api, '/api/v1/workflows', { code: code('flow'), name: 'Flow', enabled: true }),
    change: plainNamed,
  },
  '/api/v1/workflow-approvals/{id}': {
    make: (api) =>
      created(api, '/api/v1/workflow-approvals', {
        code: code('approval_flow'),
        name: 'Approval flow',
        enabled: true,
        steps: [{ name: 'Owner', order: 1, approvers: [ANA] }],
      }),
    change: plainNamed,
  },
  '/api/v1/product-approvals/{id}': {
    make: async (api) => {
      await approvalFlow(api);
      const productId = (await created(api, '/api/v1/products', product('simple'))).split('/').pop();
      for (let i = groups.length; i < 2; i++)
        groups.push(
          (await created(api, '/api/v1/attribute-groups', { key: code('group'), name: { en: 'G' } })).split('/').pop()!,
        );
      return created(api, '/api/v1/product-approvals', { product_id: productId, attribute_groups: groups });
    },
    change: (i) => ({ attribute_groups: [groups[i % 2]] }),
  },
  '/api/v1/orders/{id}': {
    make: async (api) => {
      await orderFlow(api);
      return created(api, '/api/v1/orders', order(code('order')));
    },
    change: (i) => ({ items_count: i + 1 }),
  },
  '/api/v1/imports/{id}': {
    make: async (api, n) => {
      const form = new FormData();
      form.append('file', new Blob([`SKU;Name\r\nRACE-${n};Race\r\n`]), `race-${n}.csv`);
      const r = await fetch(`${baseUrl}/api/v1/imports`, { method: 'POST', headers: adminAuth(), body: form });
      if (r.status !== 201) throw new Error(`upload: ${r.status} ${await r.text()}`);
      return `/api/v1/imports/${((await r.json()) as Json)._id as string}`;
    },
    change: (i) => ({ mapped_headers: i % 2 ? { A: 'code', B: 'name.en' } : { A: 'code', B: 'name.pt' } }),
  },
  '/api/v1/import-templates/{id}': {
    make: (api) =>
      created(api, '/api/v1/import-templates', { name: code('template'), mapped_headers: { SKU: 'code' } }),
    change: (i) => ({ name: `Racer ${i}` }),
  },
  '/api/v1/channels/{id}': {
    make: (api) =>
      created(api, '/api/v1/channels', {
        code: code('channel'),
        name: 'Channel',
        endpoint: { url: 'https://channel.example.com/items' },
      }),
    change: plainNamed,
  },
};

let baseUrl = '';
let adminKey = '';
const adminAuth = () => ({ authorization: `Bearer ${adminKey}` });
const parts: string[] = [];
const groups: string[] = [];

function attribute(type: string): Json {
  return { key: code('attr'), name: { en: 'Attribute' }, type, association: 'product', protected_by_lgpd: false };
}

function product(type: string): Json {
  const c = code('product');
  return { code: c, name: { en: c }, type };
}

async function partId(api: Api): Promise<string> {
  if (parts.length === 0) parts.push((await created(api, '/api/v1/products', product('simple'))).split('/').pop()!);
  return parts[0];
}

let approvalFlowMade = false;
async function approvalFlow(api: Api): Promise<void> {
  if (approvalFlowMade) return;
  approvalFlowMade = true;
  await created(api, '/api/v1/users-groups', {
    source_id: 'sso',
    name: 'Racing approvers',
    users: [{ id: ANA, name: 'Ana' }],
    has_full_product_access: true,
  });
  await created(api, '/api/v1/workflow-approvals', {
    code: 'racing_changes',
    name: 'Racing changes',
    enabled: true,
    default: true,
    steps: [{ name: 'Owner', order: 1, approvers: [ANA] }],
  });
}

let orderFlowMade = false;
async function orderFlow(api: Api): Promise<void> {
  if (orderFlowMade) return;
  orderFlowMade = true;
  await created(api, '/api/v1/workflows', {
    code: 'racing_fulfilment',
    name: 'Racing fulfilment',
    enabled: true,
    default: true,
    steps: [
      {
        name: 'Picking',
        code: 'picking',
        allocation_time: 4,
        status: [
          { code: 'new', name: 'New', moves_to: ['picked', 'cancelled'] },
          { code: 'picked', name: 'Picked', moves_to: ['delivered'] },
          { code: 'cancelled', name: 'Cancelled', outcome: 'CANCELED' },
        ],
      },
      { name: 'Delivery', code: 'delivery', status: [{ code: 'delivered', name: 'Delivered', outcome: 'COMPLETED' }] },
    ],
  });
}

function order(c: string): Json {
  return {
    code: c,
    external_code: `ext-${c}`,
    channel: { code: 'marketplace', name: 'Marketplace' },
    customer: { name: 'Bia', email: 'bia@example.com' },
    items_count: 1,
    workflow_code: 'racing_fulfilment',
  };
}

/** Paths of the document that take a conditional PATCH. */
function conditionalPatches(): string[] {
  const paths = document.paths as unknown as Record<
    string,
    Record<string, { parameters?: { $ref?: string; name?: string }[] }>
  >;
  return Object.entries(paths)
    .filter(([, ops]) =>
      (ops.patch?.parameters ?? []).some((p) => (p.$ref ?? p.name ?? '').toLowerCase().endsWith('if-match')),
    )
    .map(([path]) => path)
    .sort();
}

// Writes racing one another through the whole platform, over HTTP: conditional writes of every
// kind of record (exactly one of the racers with the same If-Match wins, the others get 412 and
// nothing of theirs is kept), racing upserts of one key (one record), and racing state moves
// (one move wins, the others are refused with 409 or 412, and the move's side effects happen once).
describe('racing writes through the whole platform', () => {
  let e2e: E2E;

  beforeAll(async () => {
    e2e = await startE2E('e2econcurrency');
    baseUrl = e2e.platform.gatewayUrl.replace(/\/api\/v1$/, '');
    adminKey = e2e.adminKey;
  }, 180_000);

  afterAll(async () => {
    await e2e?.close();
  });

  it('covers every record kind the API lets a caller change conditionally', () => {
    expect(Object.keys(KINDS).sort()).toEqual(conditionalPatches());
  });

  it.each(conditionalPatches())('PATCH %s: one of the racers with the same If-Match wins', async (route) => {
    const kind = KINDS[route];
    expect(kind).toBeDefined();
    const path = await kind.make(e2e.api, ++seq);
    const before = await e2e.api('GET', path);
    expect(before.status).toBe(200);
    const etag = before.headers.get('etag')!;
    expect(etag).toMatch(/^"\d+"$/);
    const changes = Array.from({ length: RACERS }, (_, i) => kind.change(i));
    const answers = await Promise.all(changes.map((body) => e2e.api('PATCH', path, body, { 'if-match': etag })));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 412)).toHaveLength(RACERS - 1);
    for (const refused of answers.filter((a) => a.status === 412))
      expect(refused.json).toMatchObject({ code: 412, kind: expect.any(String), message: expect.any(String) });
    const winner = answers.find((a) => a.status === 200)!;
    const after = await e2e.api('GET', path);
    expect(after.headers.get('etag')).toBe(winner.headers.get('etag'));
    expect(after.json.version).toBe((before.json.version as number) + 1);
    expect(after.json).toMatchObject(changes[answers.indexOf(winner)]);
  });

  it('keeps one record when upserts of the same key race, with every write counted in its version', async () => {
    const c = code('upserted');
    const answers = await Promise.all(
      Array.from({ length: RACERS }, (_, i) =>
        e2e.api('POST', '/api/v1/products/bulk', { items: [{ code: c, name: { en: `Racer ${i}` }, type: 'simple' }] }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(RACERS).fill(200));
    const page = await e2e.api('GET', `/api/v1/products?code=${c}`);
    expect(page.json.total).toBe(1);
    const stored = (page.json.data as Json[])[0];
    expect(stored.version).toBe(RACERS);
    expect((stored.name as Json).en).toMatch(/^Racer \d$/);

    const hooks = await Promise.all(
      Array.from({ length: RACERS }, (_, i) =>
        e2e.api('PUT', '/api/v1/webhooks', { collection: 'families', url: `https://example.com/families/${i}` }),
      ),
    );
    expect(hooks.map((h) => h.status)).toEqual(Array(RACERS).fill(200));
    expect(new Set(hooks.map((h) => h.json._id)).size).toBe(1);
    const listed = await e2e.api('GET', '/api/v1/webhooks?collection=families');
    expect(listed.json.total).toBe(1);
    expect((listed.json.data as Json[])[0].version).toBe(RACERS);
  });

  it('lets one of racing order moves win and refuses the others without a trace', async () => {
    await orderFlow(e2e.api);
    const path = await created(e2e.api, '/api/v1/orders', order(code('order')));
    const moves = await Promise.all(
      Array.from({ length: RACERS }, (_, i) =>
        e2e.api('POST', `${path}/status`, { status_code: i % 2 ? 'picked' : 'cancelled' }),
      ),
    );
    const won = moves.filter((m) => m.status === 200);
    expect(won).toHaveLength(1);
    for (const lost of moves.filter((m) => m.status !== 200)) {
      expect([409, 412]).toContain(lost.status);
      expect(lost.json).toMatchObject({ code: lost.status, message: expect.any(String) });
    }
    const after = await e2e.api('GET', path);
    expect(after.json.status_code).toBe(won[0].json.status_code);
    expect(after.json.version).toBe(2);
  });

  it('applies one decision when an approval and a rejection of the same step race', async () => {
    await approvalFlow(e2e.api);
    const ana = await e2e.newKey(['product_approvals:read', 'product_approvals:write'], {
      user_id: ANA,
      user_name: 'Ana',
    });
    const as = { authorization: `Bearer ${ana}` };
    const productPath = await created(e2e.api, '/api/v1/products', product('simple'));
    const groupId = (await created(e2e.api, '/api/v1/attribute-groups', { key: code('group'), name: { en: 'G' } }))
      .split('/')
      .pop();
    const proposal = await e2e.api(
      'POST',
      '/api/v1/product-approvals',
      { product_id: productPath.split('/').pop(), attribute_groups: [groupId] },
      as,
    );
    expect(proposal.status).toBe(201);
    const id = proposal.json._id as string;
    const decisions = await Promise.all(
      Array.from({ length: RACERS }, (_, i) =>
        e2e.api('POST', `/api/v1/product-approvals/${id}/${i % 2 ? 'reject' : 'approve'}`, {}, as),
      ),
    );
    const won = decisions.filter((d) => d.status === 200);
    expect(won).toHaveLength(1);
    expect(decisions.filter((d) => d.status === 409)).toHaveLength(RACERS - 1);
    const approval = (await e2e.api('GET', `/api/v1/product-approvals/${id}`)).json;
    expect(approval.decisions).toHaveLength(1);
    const productNow = (await e2e.api('GET', productPath)).json;
    if (approval.status === 'approved') expect(productNow).toMatchObject({ attribute_groups: [groupId], version: 2 });
    else expect(productNow).toMatchObject({ attribute_groups: [], version: 1 });
    const subject = `${e2e.stream.subjectPrefix}pim.workflow.product_approvals.${approval.status as string}`;
    await eventually(async () => (await e2e.stream.messages(subject)).length >= 1);
    expect(
      (await e2e.stream.messages(subject)).filter((m) => (m.data as { data?: Json }).data?._id === id),
    ).toHaveLength(1);
  });
});
