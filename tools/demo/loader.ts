// Loads the demo catalog (data.ts) through the public API, idempotently: every record is found by
// its code (key, name) first and compared with what the demo would write; only a missing record
// is created and only a differing one replaced (PUT with If-Match, or the bulk upserts by code).
// A second run writes nothing and reports "0 created, 0 changed".
import { DemoApi, DemoApiError, mapLimit, type Json } from './api';
import {
  ATTRIBUTE_GROUPS,
  ATTRIBUTES,
  BRANDS,
  CATALOGS,
  CATEGORIES,
  CATEGORY_TREES,
  CHANNELS,
  DEMO_SOURCE,
  DEMO_TAG,
  FAMILIES,
  ORDERS,
  PRODUCTS,
  RELATIONS,
  USERS_GROUPS,
  VARIATIONS,
  WEBHOOK_COLLECTIONS,
  WEBHOOK_MARK,
  WORKFLOW_APPROVALS,
  WORKFLOWS,
  type DemoProduct,
} from './data';

/** What one collection's load did. */
export interface Count {
  created: number;
  changed: number;
  unchanged: number;
}

/** The collections in the order they are loaded (and reported). */
export const COLLECTIONS = [
  'webhooks',
  'users_groups',
  'attribute_groups',
  'attributes',
  'attribute_options',
  'brands',
  'category_trees',
  'categories',
  'families',
  'catalogs',
  'products',
  'product_relations',
  'workflows',
  'workflow_approvals',
  'orders',
  'channels',
] as const;
export type Collection = (typeof COLLECTIONS)[number];

/** How many records of each collection the demo holds (what a first run on an empty platform creates). */
export function demoSize(withWebhooks = true): Record<Collection, number> {
  return {
    webhooks: withWebhooks ? WEBHOOK_COLLECTIONS.length : 0,
    users_groups: USERS_GROUPS.length,
    attribute_groups: ATTRIBUTE_GROUPS.length,
    attributes: ATTRIBUTES.length,
    attribute_options: ATTRIBUTES.reduce((n, a) => n + (a.options?.length ?? 0), 0),
    brands: BRANDS.length,
    category_trees: CATEGORY_TREES.length,
    categories: CATEGORIES.length,
    families: FAMILIES.length,
    catalogs: CATALOGS.length,
    products: PRODUCTS.length + VARIATIONS.length,
    product_relations: RELATIONS.length,
    workflows: WORKFLOWS.length,
    workflow_approvals: WORKFLOW_APPROVALS.length,
    orders: ORDERS.length,
    channels: CHANNELS.length,
  };
}

export interface LoadOptions {
  /** The API's base URL (`http://127.0.0.1:8080/api/v1`). */
  url: string;
  /** An admin API key. */
  key: string;
  /** Where the demo webhooks deliver (the receiver's URL); none: no webhook is written. */
  webhookUrl?: string;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
  /** Writes in flight at once (default 4). */
  concurrency?: number;
}

/** What became of the demo webhooks. */
export interface WebhookOutcome {
  /** set: every demo webhook points at the receiver; refused: the platform refused the target (400); off: none asked. */
  status: 'set' | 'refused' | 'off';
  /** The refusal, or the collections another (non-demo) webhook already holds. */
  message?: string;
  /** Collections whose one webhook is someone else's (left alone). */
  taken: string[];
  /** The demo webhooks by collection. */
  ids: Record<string, string>;
}

export interface LoadResult {
  counts: Record<Collection, Count>;
  webhook: WebhookOutcome;
  /** Ids the summary's curl lines use. */
  sample: { productCode: string; productId: string; kitCode: string; kitId: string };
  /** HTTP requests sent. */
  requests: number;
  ms: number;
}

/** One item of a bulk upsert that failed, as the API reported it. */
export class DemoBulkError extends Error {
  constructor(
    readonly collection: string,
    readonly failures: {
      code?: string;
      error?: { message?: string; details?: { field: string; message: string }[] };
    }[],
  ) {
    super(`${failures.length} ${collection} refused by the bulk upsert`);
    this.name = 'DemoBulkError';
  }

  describe(): string {
    const lines = [this.message];
    for (const f of this.failures.slice(0, 10)) {
      lines.push(`  ${f.code ?? '?'}: ${f.error?.message ?? 'failed'}`);
      for (const d of f.error?.details ?? []) lines.push(`      ${d.field}: ${d.message}`);
    }
    if (this.failures.length > 10) lines.push(`  … and ${this.failures.length - 10} more`);
    return lines.join('\n');
  }
}

/**
 * Whether `stored` already holds everything `want` says: every key of `want` (recursively) has
 * the same value in `stored`; arrays match item by item; keys only `stored` has (ids, versions,
 * defaults the API fills in) do not count; two datetimes match when they are the same instant.
 */
export function holds(stored: unknown, want: unknown): boolean {
  if (want === undefined) return true;
  if (want === null || typeof want !== 'object') {
    if (Object.is(stored, want)) return true;
    return typeof want === 'string' && typeof stored === 'string' && sameInstant(stored, want);
  }
  if (Array.isArray(want))
    return Array.isArray(stored) && stored.length === want.length && want.every((w, i) => holds(stored[i], w));
  if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return false;
  return Object.entries(want).every(([k, v]) => holds((stored as Json)[k], v));
}

const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
function sameInstant(a: string, b: string): boolean {
  if (!DATETIME.test(a) || !DATETIME.test(b)) return false;
  const x = Date.parse(a);
  return !Number.isNaN(x) && x === Date.parse(b);
}

/** The state of one load: the API, the counts, and the ids of what exists, by collection and code. */
class Loader {
  readonly counts = Object.fromEntries(COLLECTIONS.map((c) => [c, { created: 0, changed: 0, unchanged: 0 }])) as Record<
    Collection,
    Count
  >;
  readonly ids = new Map<string, Map<string, string>>();
  private lap = Date.now();

  constructor(
    readonly api: DemoApi,
    readonly log: (line: string) => void,
    readonly concurrency: number,
  ) {}

  /** The id of a record by collection and code (throws for an unknown code: a mistake in data.ts). */
  id(collection: string, code: string): string {
    const id = this.ids.get(collection)?.get(code);
    if (!id) throw new Error(`demo data: no ${collection} '${code}' (referenced but not loaded)`);
    return id;
  }

  remember(collection: string, code: string, id: string): void {
    if (!this.ids.has(collection)) this.ids.set(collection, new Map());
    this.ids.get(collection)!.set(code, id);
  }

  tally(collection: Collection, what: keyof Count, n = 1): void {
    this.counts[collection][what] += n;
  }

  report(collection: Collection): void {
    const c = this.counts[collection];
    const s = ((Date.now() - this.lap) / 1000).toFixed(1);
    this.lap = Date.now();
    this.log(
      `  ${collection.padEnd(20)} ${String(c.created).padStart(4)} created ${String(c.changed).padStart(4)} changed ${String(c.unchanged).padStart(4)} unchanged  (${s} s)`,
    );
  }

  /**
   * The generic "ensure": finds the existing records (`existing`, keyed by `keyOf`), creates what
   * is missing (POST `path`), replaces what differs (PUT `path/{id}` with If-Match) and leaves the
   * rest; remembers every id under `collection` by key.
   */
  async ensure(
    collection: Collection,
    path: string,
    desired: Json[],
    keyOf: (r: Json) => string,
    existing: () => Promise<Json[]>,
  ): Promise<void> {
    const have = new Map((await existing()).map((r) => [keyOf(r), r]));
    await mapLimit(desired, this.concurrency, async (want) => {
      const key = keyOf(want);
      const stored = have.get(key);
      let record: Json;
      if (!stored) {
        record = await this.api.post(path, want);
        this.tally(collection, 'created');
      } else if (holds(stored, want)) {
        record = stored;
        this.tally(collection, 'unchanged');
      } else {
        record = await this.api.put(`${path}/${stored._id as string}`, want, stored.version as number);
        this.tally(collection, 'changed');
      }
      this.remember(collection, key, record._id as string);
    });
  }

  /** ensure() for records found by one field (`code`, `key`, `name`) with `<field>_in`. */
  byField(collection: Collection, path: string, field: string, desired: Json[]): Promise<void> {
    const keys = desired.map((d) => String(d[field]));
    return this.ensure(
      collection,
      path,
      desired,
      (r) => String(r[field]),
      () => this.api.listIn(path, field, keys),
    );
  }
}

/** Loads (or checks) the whole demo catalog; throws DemoApiError / DemoBulkError on a refusal. */
export async function loadDemo(opts: LoadOptions): Promise<LoadResult> {
  const started = Date.now();
  const api = new DemoApi({ url: opts.url, key: opts.key });
  const l = new Loader(api, opts.log ?? (() => {}), opts.concurrency ?? 4);

  // First the webhooks, so that every record the demo writes next is delivered to the receiver.
  const webhook = opts.webhookUrl
    ? await ensureWebhooks(l, opts.webhookUrl)
    : ({ status: 'off', taken: [], ids: {} } as WebhookOutcome);
  l.report('webhooks');
  if (webhook.status === 'refused')
    l.log('  (the platform refused the webhooks: see below; the rest loads without them)');

  await l.byField(
    'users_groups',
    '/users-groups',
    'name',
    USERS_GROUPS.map((g) => ({ source_id: DEMO_SOURCE, ...g })),
  );
  l.report('users_groups');

  await l.byField(
    'attribute_groups',
    '/attribute-groups',
    'key',
    ATTRIBUTE_GROUPS.map((g) => ({ ...g, enabled: true, tags: [DEMO_TAG] })),
  );
  l.report('attribute_groups');

  await l.byField(
    'attributes',
    '/attributes',
    'key',
    ATTRIBUTES.map((a) => ({
      key: a.key,
      name: a.name,
      description: a.description,
      type: a.type,
      ...(a.type_config ? { type_config: a.type_config } : {}),
      association: a.association,
      protected_by_lgpd: false,
      required: a.required ?? false,
      unique: false,
      sequence: a.sequence,
      enabled: true,
      groups: a.groups.map((g) => ({ _id: l.id('attribute_groups', g), required: false })),
      tags: [DEMO_TAG],
    })),
  );
  l.report('attributes');

  for (const a of ATTRIBUTES.filter((x) => x.options)) {
    const path = `/attributes/${l.id('attributes', a.key)}/options`;
    await l.ensure(
      'attribute_options',
      path,
      a.options!.map((o, i) => ({ value: o.value, label: o.label, sequence: i + 1, enabled: true, tags: [DEMO_TAG] })),
      (r) => `${a.key}:${String(r.value)}`,
      () => api.list(path),
    );
  }
  l.report('attribute_options');

  await l.byField(
    'brands',
    '/brands',
    'code',
    BRANDS.map((b) => ({
      code: b.code,
      name: { 'pt-BR': b.name, en: b.name },
      description: b.description,
      enabled: true,
      tags: [DEMO_TAG],
    })),
  );
  l.report('brands');

  await l.byField(
    'category_trees',
    '/category-trees',
    'code',
    CATEGORY_TREES.map((tr) => ({ ...tr, enabled: true, tags: [DEMO_TAG] })),
  );
  l.report('category_trees');

  // Level by level: a category names its parent's id.
  const depth = (code: string): number => {
    const c = CATEGORIES.find((x) => x.code === code)!;
    return c.parent ? 1 + depth(c.parent) : 0;
  };
  const levels = [...new Set(CATEGORIES.map((c) => depth(c.code)))].sort();
  for (const level of levels)
    await l.byField(
      'categories',
      '/categories',
      'code',
      CATEGORIES.filter((c) => depth(c.code) === level).map((c) => ({
        code: c.code,
        name: c.name,
        category_tree_id: l.id('category_trees', c.tree),
        ...(c.parent ? { parent_id: l.id('categories', c.parent) } : {}),
        enabled: true,
        tags: [DEMO_TAG],
      })),
    );
  l.report('categories');

  await l.byField(
    'families',
    '/families',
    'code',
    FAMILIES.map((f) => ({
      code: f.code,
      name: f.name,
      attribute_groups: f.attribute_groups.map((g) => l.id('attribute_groups', g)),
      enabled: true,
      tags: [DEMO_TAG],
    })),
  );
  l.report('families');

  await l.byField(
    'catalogs',
    '/catalogs',
    'code',
    CATALOGS.map((c) => ({
      code: c.code,
      name: c.name,
      description: c.description,
      user_groups: c.user_groups.map((g) => l.id('users_groups', g)),
      enabled: true,
      tags: [DEMO_TAG],
    })),
  );
  l.report('catalogs');

  await ensureProducts(l, PRODUCTS);
  await ensureProducts(l, VARIATIONS);
  l.report('products');

  await ensureRelations(l);
  l.report('product_relations');

  await l.byField('workflows', '/workflows', 'code', WORKFLOWS);
  l.report('workflows');

  await l.byField(
    'workflow_approvals',
    '/workflow-approvals',
    'code',
    WORKFLOW_APPROVALS.map((w) => ({
      ...w,
      included_products: w.included_products.map((code) => l.id('products', code)),
    })),
  );
  l.report('workflow_approvals');

  await ensureOrders(l);
  l.report('orders');

  await l.byField('channels', '/channels', 'code', CHANNELS);
  l.report('channels');

  const productCode = 'FRI-002';
  const kitCode = 'KIT-HOME-OFFICE';
  return {
    counts: l.counts,
    webhook,
    sample: {
      productCode,
      productId: l.id('products', productCode),
      kitCode,
      kitId: l.id('products', kitCode),
    },
    requests: api.requests,
    ms: Date.now() - started,
  };
}

/** A product as the API takes it: codes turned into ids; every product is in the online store's catalog. */
function productBody(l: Loader, p: DemoProduct): Json {
  return {
    code: p.code,
    type: p.type,
    name: p.name,
    description: p.description,
    family_id: l.id('families', p.family),
    ...(p.brand ? { brand_id: l.id('brands', p.brand) } : {}),
    categories: p.categories.map((c) => l.id('categories', c)),
    ...(p.parent ? { product_id: l.id('products', p.parent) } : {}),
    catalogs: CATALOGS.map((c) => ({ _id: l.id('catalogs', c.code), user_groups: [] })),
    enabled: p.enabled,
    tags: p.tags,
    image: p.image,
    attributes: p.attributes,
  };
}

/** Products through `POST /products/bulk` (upsert by code), only those missing or differing, 100 a call. */
async function ensureProducts(l: Loader, products: DemoProduct[]): Promise<void> {
  const bodies = products.map((p) => productBody(l, p));
  const have = new Map(
    (
      await l.api.listIn(
        '/products',
        'code',
        bodies.map((b) => b.code as string),
      )
    ).map((r) => [r.code as string, r]),
  );
  const writes: Json[] = [];
  for (const b of bodies) {
    const stored = have.get(b.code as string);
    if (stored && holds(stored, b)) {
      l.remember('products', b.code as string, stored._id as string);
      l.tally('products', 'unchanged');
    } else writes.push(b);
  }
  const failures: ConstructorParameters<typeof DemoBulkError>[1] = [];
  for (let i = 0; i < writes.length; i += 100) {
    const r = await l.api.post<{ data: { code?: string; _id?: string; status: string; error?: Json }[] }>(
      '/products/bulk',
      { items: writes.slice(i, i + 100) },
    );
    for (const item of r.data) {
      if (item.status === 'failed') {
        failures.push(item as (typeof failures)[number]);
        continue;
      }
      l.remember('products', item.code!, item._id!);
      l.tally('products', item.status === 'created' ? 'created' : item.status === 'updated' ? 'changed' : 'unchanged');
    }
  }
  if (failures.length > 0) throw new DemoBulkError('products', failures);
}

/** One relation per product and type, found by `product_id_in`, the key `<product code>:<type>`. */
async function ensureRelations(l: Loader): Promise<void> {
  const codeById = new Map([...(l.ids.get('products') ?? new Map<string, string>())].map(([code, id]) => [id, code]));
  const desired = RELATIONS.map((r) => {
    let items: Json[];
    if (r.categories) {
      items = r.categories.map((code) =>
        r.type === 'ineligible_service_categories'
          ? {
              id: l.id('categories', code),
              category_tree_id: l.id('category_trees', CATEGORIES.find((c) => c.code === code)!.tree),
            }
          : { id: l.id('categories', code) },
      );
    } else {
      items = Object.entries(r.products ?? {}).map(([code, quantity]) =>
        quantity === null ? { id: l.id('products', code) } : { id: l.id('products', code), quantity },
      );
    }
    return { type: r.type, product_id: l.id('products', r.product), [r.type]: items };
  });
  const productIds = [...new Set(desired.map((d) => d.product_id))];
  await l.ensure(
    'product_relations',
    '/product-relations',
    desired,
    (r) => `${codeById.get(r.product_id as string) ?? (r.product_id as string)}:${r.type as string}`,
    () => l.api.listIn('/product-relations', 'product_id', productIds),
  );
}

/** The statuses from `from` to `to` (exclusive of `from`) along the workflow's moves, or null. */
function pathTo(from: string, to: string): string[] | null {
  const statuses = WORKFLOWS[0].steps.flatMap((s) => s.status);
  const all = statuses.map((s) => s.code);
  const next = (code: string) => {
    const s = statuses.find((x) => x.code === code);
    if (!s || s.outcome) return [];
    return s.moves_to && s.moves_to.length > 0 ? s.moves_to : all;
  };
  const prev = new Map<string, string>([[from, '']]);
  const queue = [from];
  while (queue.length > 0) {
    const cur = queue.shift()!;
    if (cur === to) {
      const out: string[] = [];
      for (let c = to; c !== from; c = prev.get(c)!) out.unshift(c);
      return out;
    }
    for (const n of next(cur))
      if (!prev.has(n)) {
        prev.set(n, cur);
        queue.push(n);
      }
  }
  return null;
}

/** Orders through `POST /orders/bulk` (by code), then moved along the workflow to their demo status. */
async function ensureOrders(l: Loader): Promise<void> {
  const bodies = ORDERS.map((o) => ({
    ...o.input,
    order_items: o.input.order_items.map((it) => ({ ...it, product_id: l.id('products', it.sku) })),
  }));
  const codes = bodies.map((b) => b.code);
  const have = new Map((await l.api.listIn('/orders', 'code', codes)).map((r) => [r.code as string, r]));
  const writes = bodies.filter((b) => !have.has(b.code) || !holds(have.get(b.code), b));
  const created = new Set<string>();
  const changed = new Set<string>();
  if (writes.length > 0) {
    const failures: ConstructorParameters<typeof DemoBulkError>[1] = [];
    for (let i = 0; i < writes.length; i += 100) {
      const r = await l.api.post<{ data: { code?: string; status: string; error?: Json }[] }>('/orders/bulk', {
        items: writes.slice(i, i + 100),
      });
      for (const item of r.data) {
        if (item.status === 'failed') failures.push(item as (typeof failures)[number]);
        else (item.status === 'created' ? created : changed).add(item.code!);
      }
    }
    if (failures.length > 0) throw new DemoBulkError('orders', failures);
    // Read the written ones again: their ids and where they stand now.
    for (const r of await l.api.listIn('/orders', 'code', [...created, ...changed])) have.set(r.code as string, r);
  }
  await mapLimit(ORDERS, l.concurrency, async (o) => {
    const stored = have.get(o.input.code)!;
    l.remember('orders', o.input.code, stored._id as string);
    const at = stored.status_code as string;
    if (at === o.status) return;
    const path = pathTo(at, o.status);
    if (!path) {
      l.log(`  (order ${o.input.code} is at '${at}', from where the workflow cannot reach '${o.status}'; left there)`);
      return;
    }
    for (const status_code of path)
      await l.api.post(`/orders/${stored._id as string}/status`, { status_code, comment: 'demo' });
    if (!created.has(o.input.code)) changed.add(o.input.code);
  });
  l.tally('orders', 'created', created.size);
  l.tally('orders', 'changed', changed.size);
  l.tally('orders', 'unchanged', ORDERS.length - created.size - changed.size);
}

/** Webhooks marked as the demo's (a body pair), never another's. */
export function isDemoWebhook(w: Json): boolean {
  return ((w.body as { key: string; value: string }[] | undefined) ?? []).some(
    (p) => p.key === WEBHOOK_MARK.key && p.value === WEBHOOK_MARK.value,
  );
}

/** The demo webhooks that exist now (to reuse their receiver port). */
export async function demoWebhooks(url: string, key: string): Promise<Json[]> {
  const api = new DemoApi({ url, key });
  return (await api.list('/webhooks', { collection_in: WEBHOOK_COLLECTIONS.join(',') })).filter(isDemoWebhook);
}

/**
 * One webhook per collection (PUT /webhooks upserts by collection) pointing at the receiver. A
 * collection whose webhook is someone else's is left alone; a 400 refusing the URL (a non-public
 * target the platform does not allow) stops the webhooks and the load goes on without them.
 */
async function ensureWebhooks(l: Loader, url: string): Promise<WebhookOutcome> {
  const outcome: WebhookOutcome = { status: 'set', taken: [], ids: {} };
  const have = new Map(
    (await l.api.list('/webhooks', { collection_in: WEBHOOK_COLLECTIONS.join(',') })).map((w) => [
      w.collection as string,
      w,
    ]),
  );
  for (const collection of WEBHOOK_COLLECTIONS) {
    const stored = have.get(collection);
    if (stored && !isDemoWebhook(stored)) {
      outcome.taken.push(collection);
      continue;
    }
    const want = { collection, url, headers: [], body: [WEBHOOK_MARK], enabled: true };
    if (stored && holds(stored, want)) {
      l.tally('webhooks', 'unchanged');
      outcome.ids[collection] = stored._id as string;
      continue;
    }
    try {
      const r = await l.api.put('/webhooks', want);
      outcome.ids[collection] = r._id as string;
      l.tally('webhooks', stored ? 'changed' : 'created');
    } catch (err) {
      if (err instanceof DemoApiError && err.status === 400 && (err.body.details ?? []).some((d) => d.field === 'url'))
        return { status: 'refused', message: err.body.message, taken: outcome.taken, ids: outcome.ids };
      throw err;
    }
  }
  if (outcome.taken.length > 0)
    outcome.message = `another webhook already serves ${outcome.taken.join(', ')} (one per collection); the demo left it alone`;
  if (Object.keys(outcome.ids).length === 0 && outcome.status === 'set') outcome.status = 'off';
  return outcome;
}
