import { ATTRIBUTES, KITS, ORDERS, PRODUCTS, VARIATIONS } from '../../tools/demo/data';
import { COLLECTIONS, demoSize, loadDemo, type LoadResult } from '../../tools/demo/loader';
import { startDemoReceiver, type DemoReceiver } from '../../tools/demo/receiver';
import { eventually, startE2E, type E2E } from './platform';

type Json = Record<string, unknown>;

// `npm run demo`'s loader against the whole platform, over HTTP only: a first run creates the
// Casa Brasil catalog (every collection, the 14 attribute types, kits and eligibility, orders moved
// along their workflow, webhooks delivering to the demo's receiver); a second run finds every
// record by its code and writes nothing: no create, no change, no new version, no new event.
describe('the demo catalog (npm run demo) through the whole platform', () => {
  let e2e: E2E;
  let receiver: DemoReceiver;
  const size = demoSize();

  beforeAll(async () => {
    e2e = await startE2E('e2edemo', { WEBHOOKS_ALLOWED_TARGETS: '127.0.0.0/8,::1/128' });
    receiver = await startDemoReceiver();
  }, 300_000);

  afterAll(async () => {
    await receiver?.close();
    await e2e?.close();
  });

  const load = () => loadDemo({ url: e2e.platform.gatewayUrl, key: e2e.adminKey, webhookUrl: receiver.url });

  /** Every record a list selects (all pages). */
  const all = async (path: string, query = ''): Promise<Json[]> => {
    const out: Json[] = [];
    for (let page = 1; ; page++) {
      const r = await e2e.api('GET', `/api/v1${path}?limit=100&page=${page}${query ? `&${query}` : ''}`);
      expect(r.status).toBe(200);
      out.push(...(r.json.data as Json[]));
      if (page >= (r.json.pages as number)) return out;
    }
  };

  /** `<path>/<id>` → version of every record the demo wrote (the platform holds nothing else). */
  const versions = async (): Promise<Record<string, number>> => {
    const out: Record<string, number> = {};
    const paths = [
      '/webhooks',
      '/users-groups',
      '/attribute-groups',
      '/attributes',
      '/brands',
      '/category-trees',
      '/categories',
      '/families',
      '/catalogs',
      '/products',
      '/product-relations',
      '/workflows',
      '/workflow-approvals',
      '/orders',
      '/channels',
    ];
    for (const path of paths) for (const r of await all(path)) out[`${path}/${r._id as string}`] = r.version as number;
    for (const a of await all('/attributes', 'type_in=select,multiselect'))
      for (const o of await all(`/attributes/${a._id as string}/options`))
        out[`/attributes/${a._id as string}/options/${o._id as string}`] = o.version as number;
    return out;
  };

  /** Distinct events of a type the receiver got (an attempt a worker lost may be delivered again). */
  const counted = (type: string) =>
    new Set(receiver.deliveries.filter((d) => d.type === type).map((d) => d.eventId)).size;
  let first: LoadResult;

  it('creates every collection on a first run, through the API only', async () => {
    first = await load();
    for (const c of COLLECTIONS)
      expect([c, first.counts[c]]).toEqual([c, { created: size[c], changed: 0, unchanged: 0 }]);
    expect(first.webhook).toMatchObject({ status: 'set', taken: [] });

    // Products: the total, each type, variations under their parents.
    const products = await all('/products', 'tags=demo');
    expect(products).toHaveLength(PRODUCTS.length + VARIATIONS.length);
    expect(size.products).toBeGreaterThanOrEqual(200);
    const types = new Map<string, number>();
    for (const p of products) types.set(p.type as string, (types.get(p.type as string) ?? 0) + 1);
    expect(Object.fromEntries(types)).toEqual({
      simple: PRODUCTS.filter((p) => p.type === 'simple').length,
      variation: VARIATIONS.length,
      kit: KITS.length,
      service: PRODUCTS.filter((p) => p.type === 'service').length,
    });
    const byId = new Map(products.map((p) => [p._id as string, p]));
    for (const v of products.filter((p) => p.type === 'variation'))
      expect(byId.get(v.product_id as string)?.code).toBe(VARIATIONS.find((x) => x.code === v.code)!.parent);

    // One attribute of each of the 14 types, every one of them held by some product.
    const attributes = await all('/attributes');
    expect(new Set(attributes.map((a) => a.type)).size).toBe(14);
    for (const a of ATTRIBUTES)
      expect([a.key, products.some((p) => (p.attributes as Json)[a.key] !== undefined)]).toEqual([a.key, true]);

    // Relations: every kit holds its products; services have their eligibility.
    const relations = await all('/product-relations');
    expect(relations).toHaveLength(size.product_relations);
    const kitProducts = relations.filter((r) => r.type === 'kit_products');
    expect(kitProducts).toHaveLength(KITS.length);
    for (const r of kitProducts) {
      const kit = KITS.find((k) => k.code === byId.get(r.product_id as string)?.code)!;
      const parts = (r.kit_products as { id: string; quantity: number }[]).map((i) => [
        byId.get(i.id)?.code,
        i.quantity,
      ]);
      expect(Object.fromEntries(parts)).toEqual(kit.products);
    }
    expect(relations.filter((r) => r.type === 'kit_services').length).toBeGreaterThan(0);
    expect(relations.filter((r) => r.type === 'eligible_service_categories').length).toBeGreaterThan(0);

    // Orders, each at its demo status, moved there along the workflow.
    const orders = await all('/orders', 'workflow_code=pedidos-loja');
    expect(orders).toHaveLength(ORDERS.length);
    const statusOf = new Map(ORDERS.map((o) => [o.input.code, o.status]));
    for (const o of orders) expect([o.code, o.status_code]).toEqual([o.code, statusOf.get(o.code as string)]);
    expect(orders.filter((o) => (o.order_trackings as unknown[]).length > 1).length).toBeGreaterThan(0);

    // The webhooks delivered every product and order created to the receiver.
    await eventually(
      async () => counted('products.created') === size.products && counted('orders.created') === size.orders,
      90_000,
    );
    expect(receiver.deliveries.every((d) => Date.parse(d.eventAt ?? '') > 0)).toBe(true);
    await receiver.settle(2_000, 30_000);
  }, 300_000);

  it('finds everything on a second run and writes nothing: no create, no change, no new version, no new event', async () => {
    expect(first).toBeDefined();
    const before = await versions();
    expect(Object.keys(before).length).toBeGreaterThan(size.products + size.orders);
    const started = Date.now();
    const second = await load();
    for (const c of COLLECTIONS)
      expect([c, second.counts[c]]).toEqual([c, { created: 0, changed: 0, unchanged: size[c] }]);
    expect(second.webhook.ids).toEqual(first.webhook.ids);
    expect(await versions()).toEqual(before);
    // No event happened during the second run (late deliveries of the first run's events aside).
    await new Promise((r) => setTimeout(r, 3_000));
    expect(receiver.deliveries.filter((d) => Date.parse(d.eventAt ?? '') >= started)).toEqual([]);
  }, 180_000);
});
