import { errorObjectProblems } from '../suites/census/error-object';
import {
  inPool,
  nameOf,
  operationsOf,
  pathWith,
  requestMediaType,
  type OpenApiDocument,
  type OpenApiOperation,
  type Operation,
} from '../suites/census/operations';
import { grantableScopes, lackingScope, satisfies } from '../suites/census/scopes';
import { ATTRIBUTE_FILTERS, hiddenAttributePlan, type HiddenProbe } from '../suites/census/hidden';
import { SPECIAL_PROBES, visibilityPlan, type Visibility } from '../suites/census/visibility';
import { eventually, startE2E, type E2E } from './platform';

type Json = Record<string, unknown>;
type Answer = { status: number; body: unknown };

// The census (docs/testing.md): every operation of the OpenAPI document the gateway serves is
// called (a) without a key → 401, (b) with a key lacking its scope → 403, and (c) when it reaches
// records of products, by a user whose users groups see one product and not another → 404 for the
// other's records, lists without them (docs/decisions/access.md); each refusal the documented
// error object. The plan is derived from the document, so a new operation joins by itself or fails
// naming what the census lacks to check it.
describe('census of every operation of the OpenAPI document', () => {
  let e2e: E2E;
  let doc: OpenApiDocument;
  let ops: Operation[];
  let plan: Map<string, Visibility>;
  let planProblems: string[];
  const ANY_ID = '6740a1b2c3d4e5f601234567';

  /**
   * A raw call: `key` undefined sends no Authorization header; a body as JSON (a FormData as
   * multipart); the answer parsed when JSON. A 503 (the shared database busy) is tried again
   * after its Retry-After, as a client would: the census is about the answer, not the load.
   */
  const call = async (method: string, path: string, key?: string, body?: unknown, tries = 3): Promise<Answer> => {
    const form = body instanceof FormData;
    const res = await fetch(`${e2e.platform.gatewayUrl.replace(/\/api\/v1$/, '')}${path}`, {
      method: method.toUpperCase(),
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body === undefined || form ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : form ? body : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status === 503 && tries > 1) {
      await new Promise((r) => setTimeout(r, Math.min(Number(res.headers.get('retry-after') ?? 1), 5) * 1_000));
      return call(method, path, key, body, tries - 1);
    }
    const json =
      (res.headers.get('content-type') ?? '').includes('json') && text ? (JSON.parse(text) as unknown) : text;
    return { status: res.status, body: json };
  };

  /**
   * A call to an operation with any id in its path and no body, except that an operation taking
   * an upload gets an empty multipart body: the media type the document states, so the refusal
   * answers the key and not the media type.
   */
  const bare = (o: Operation, key?: string) =>
    call(
      o.method,
      pathWith(o.path, {}, ANY_ID),
      key,
      requestMediaType(o) === 'multipart/form-data' ? new FormData() : undefined,
    );

  /** A call with the platform's admin key, under `/api/v1`. */
  const admin = async (method: string, path: string, body?: unknown) => {
    const a = await call(method, `/api/v1${path}`, e2e.adminKey, body);
    return { status: a.status, json: a.body as Json };
  };

  /** A new API key with these scopes (bound to `user` when given): its token. */
  const newKey = async (scopes: string[], user?: { user_id: string; user_name: string }): Promise<string> => {
    const r = await admin('POST', '/api-keys', { name: `census key, ${scopes.length} scope(s)`, scopes, ...user });
    if (r.status !== 201) throw new Error(`creating a key failed: ${r.status} ${JSON.stringify(r.json)}`);
    return r.json.key as string;
  };

  /** What is wrong with an answer that should be the error object of `status` (empty: nothing). */
  const refusal = (o: Operation, a: Answer, status: number): string[] =>
    a.status !== status
      ? [`${nameOf(o)}: ${a.status}, not ${status}: ${JSON.stringify(a.body).slice(0, 300)}`]
      : errorObjectProblems(doc, o, status, a.body).map((p) => `${nameOf(o)}: ${status} ${p}`);

  beforeAll(async () => {
    e2e = await startE2E('e2ecensus', {
      // Hundreds of calls in a few seconds, with and without keys.
      RATE_LIMIT_PER_MINUTE: '100000',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000',
      PUBLISHER_ALLOWED_TARGETS: '127.0.0.0/8',
      PUBLISHER_POLL_MS: '100',
    });
    doc = (await (await fetch(`${e2e.platform.gatewayUrl}/openapi.json`)).json()) as OpenApiDocument;
    ops = operationsOf(doc);
    ({ plan, problems: planProblems } = visibilityPlan(doc, ops));
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
  });

  it('plans every operation, and would name one it cannot check', () => {
    expect(planProblems).toEqual([]);
    const classes = [...plan.values()].map((v) => v.class);
    const count = (c: Visibility['class']) => classes.filter((x) => x === c).length;
    console.log(
      `census: ${ops.length} operations; ${ops.filter((o) => o.scope !== 'authenticated').length} need a scope; ` +
        `${count('product-owned')} reach records of products, ${count('names-products')} name products unrestricted ` +
        `(with reasons), ${count('not-about-products')} are not about products`,
    );
    expect(plan.size).toBe(ops.length);
    expect(count('product-owned')).toBeGreaterThanOrEqual(28);

    // A new operation on records of products of a shape no probe knows, and one naming products unlisted.
    const grown = structuredClone(doc);
    const like = (path: string, method: string, operationId: string) => ({
      [method]: { ...(doc.paths[path][method] as OpenApiOperation), operationId },
    });
    grown.paths['/api/v1/product-approvals/{id}/escalate'] = like(
      '/api/v1/product-approvals/{id}/approve',
      'post',
      'escalateProductApproval',
    );
    grown.paths['/api/v1/publications/{id}/copies/{copyId}'] = like(
      '/api/v1/publications/{id}',
      'get',
      'getPublicationCopy',
    );
    grown.paths['/api/v1/brands/{id}/bestsellers'] = like('/api/v1/orders/{id}', 'get', 'listBrandBestsellers');
    const { plan: grownPlan, problems } = visibilityPlan(grown, operationsOf(grown));
    expect(grownPlan.get('escalateProductApproval')).toMatchObject({ class: 'product-owned', probe: 'write' });
    expect(problems).toEqual([
      expect.stringContaining('GET /api/v1/publications/{id}/copies/{copyId} (getPublicationCopy) reaches records'),
      expect.stringContaining('GET /api/v1/brands/{id}/bestsellers (listBrandBestsellers) names products'),
    ]);
  });

  it('(a) refuses every operation without a key: 401, the error object', async () => {
    const failures = await inPool(ops, 8, async (o) => refusal(o, await bare(o), 401));
    expect(failures.flat()).toEqual([]);
  });

  it('(b) refuses every operation that needs a scope to a key without it: 403, the error object', async () => {
    const grantable = grantableScopes(doc);
    const lacking = [...new Set(ops.map((o) => lackingScope(o.scope, grantable)).filter((s) => s !== undefined))];
    const keys = Object.fromEntries(await Promise.all(lacking.map(async (s) => [s, await newKey([s])] as const)));
    const needing = ops.filter((o) => o.scope !== 'authenticated');
    const failures = await inPool(needing, 8, async (o) => {
      const scope = lackingScope(o.scope, grantable)!;
      expect(satisfies(scope, o.scope)).toBe(false);
      return refusal(o, await bare(o, keys[scope]), 403);
    });
    expect(failures.flat()).toEqual([]);
    // Any key may call the rest: with one of these, they answer (no 401, no 403).
    const open = ops.filter((o) => o.scope === 'authenticated');
    for (const o of open)
      expect([nameOf(o), (await call(o.method, o.path, keys[lacking[0]])).status]).toEqual([nameOf(o), 200]);
    console.log(`census (b): ${needing.length} operations refused without their scope, ${open.length} open to any key`);
  });

  describe('(c) a user who sees one product and not another', () => {
    const USER = '6740a1b2c3d4e5f6000000c5';
    /** The restricted user's key: every scope the operations on records of products need. */
    let key: string;
    const id: Record<string, string> = {};
    /** Per collection path: its records of the visible and the hidden product, and the bodies its probes send. */
    let fixtures: Record<string, Fixture>;
    interface Fixture {
      visible: string;
      hidden: string;
      /** A body naming a product, for a create (undefined: the collection has no create). */
      create?(productId: string): unknown;
      /** The body of each write on a record by method or action (`put`, `patch`, `delete`, `approve`…): null for none. */
      writes: Record<string, unknown>;
      /** What a write on the hidden record must leave as it was. */
      kept(record: Json): unknown;
    }
    const made = async (path: string, body: unknown): Promise<string> => {
      const r = await admin('POST', path, body);
      if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(r.json)}`);
      return r.json._id as string;
    };
    const probed = new Set<string>();
    const owned = (kind: string) =>
      ops.filter((o) => {
        const v = plan.get(o.operationId);
        return v?.class === 'product-owned' && v.probe === kind;
      });
    const fixtureOf = (o: Operation) => {
      const f = fixtures[(plan.get(o.operationId) as { collection: string }).collection];
      if (!f) throw new Error(`${nameOf(o)}: the census has no records of its collection to probe with`);
      return f;
    };

    beforeAll(async () => {
      const group = await made('/users-groups', {
        source_id: 'sso',
        name: 'census',
        users: [{ id: USER, name: 'Uma' }],
        has_full_product_access: false,
      });
      const seen = await made('/catalogs', { code: 'census_seen', name: { en: 'Seen' }, user_groups: [group] });
      const unseen = await made('/catalogs', { code: 'census_unseen', name: { en: 'Unseen' }, user_groups: [] });
      const product = (code: string, catalog?: string) =>
        made('/products', {
          code,
          type: 'simple',
          name: { en: `Census ${code}` },
          catalogs: catalog ? [{ _id: catalog, user_groups: [] }] : [],
        });
      id.visible = await product('census_visible', seen);
      id.hidden = await product('census_hidden', unseen);
      id.other = await product('census_other');
      id.specs = await made('/attribute-groups', { key: 'census_specs', name: { en: 'Specs' } });
      id.care = await made('/attribute-groups', { key: 'census_care', name: { en: 'Care' } });
      await made('/workflow-approvals', {
        code: 'census',
        name: 'Census',
        enabled: true,
        // The user decides every step: a refusal can only come from what they see.
        steps: [{ name: 'Review', order: 1, approvers: [USER] }],
      });
      id.channel = await made('/channels', {
        code: 'census_shop',
        name: 'Census shop',
        // Nothing listens there: sends fail and are retried later, which the census does not wait for.
        endpoint: { url: 'http://127.0.0.1:9/listings', timeout_ms: 1_000 },
      });
      const relation = (productId: string, item: string) => ({
        type: 'association',
        product_id: productId,
        association: [{ id: item }],
      });
      const approval = (productId: string) => ({ product_id: productId, attribute_groups: [id.specs] });
      const publication = (productId: string) => ({ product_id: productId, channel_id: id.channel });
      fixtures = {
        products: {
          visible: id.visible,
          hidden: id.hidden,
          create: (productId) => ({
            code: `census_variation_${productId.slice(-6)}`,
            type: 'variation',
            name: { en: 'Census variation' },
            product_id: productId,
            catalogs: [{ _id: seen, user_groups: [] }],
          }),
          writes: {
            put: {
              code: 'census_hidden',
              type: 'simple',
              name: { en: 'Census marker' },
              catalogs: [{ _id: seen, user_groups: [] }],
            },
            patch: { name: { en: 'Census marker' } },
            delete: null,
          },
          kept: (p) => ({ name: p.name, catalogs: p.catalogs }),
        },
        'product-relations': {
          visible: await made('/product-relations', relation(id.visible, id.other)),
          hidden: await made('/product-relations', relation(id.hidden, id.other)),
          create: (productId) => relation(productId, id.other),
          writes: {
            put: relation(id.hidden, id.visible),
            patch: { association: [{ id: id.visible }] },
            delete: null,
          },
          kept: (r) => r.association,
        },
        'product-approvals': {
          visible: await made('/product-approvals', approval(id.visible)),
          hidden: await made('/product-approvals', approval(id.hidden)),
          create: approval,
          writes: {
            put: { product_id: id.hidden, attribute_groups: [id.care] },
            patch: { attribute_groups: [id.care] },
            delete: null,
            approve: { comment: 'census' },
            reject: { comment: 'census' },
          },
          kept: (a) => ({ attribute_groups: a.attribute_groups, status: a.status, decisions: a.decisions }),
        },
        publications: {
          visible: await made('/publications', publication(id.visible)),
          hidden: await made('/publications', publication(id.hidden)),
          create: publication,
          writes: { delete: null, retry: null },
          kept: (p) => ({ product_id: p.product_id, channel_id: p.channel_id }),
        },
      };
      const needed = ops.filter((o) => plan.get(o.operationId)?.class === 'product-owned').map((o) => o.scope);
      // Write includes read: a read scope is asked for only where no operation of its collection writes.
      const scopes = [...new Set(needed)].filter(
        (s) => !(s.endsWith(':read') && needed.includes(s.replace(/:read$/, ':write'))),
      );
      key = await newKey(scopes, { user_id: USER, user_name: 'Uma' });
    }, 60_000);

    it('reads: a record of the hidden product is a 404 error object, of the visible one a 200', async () => {
      const failures: string[] = [];
      for (const o of owned('read')) {
        const f = fixtureOf(o);
        failures.push(...refusal(o, await call('get', pathWith(o.path, { id: f.hidden }), key), 404));
        const mine = await call('get', pathWith(o.path, { id: f.visible }), key);
        if (mine.status !== 200 || (mine.body as Json)._id !== f.visible)
          failures.push(`${nameOf(o)}: the visible product's record answered ${mine.status}`);
        probed.add(o.operationId);
      }
      expect(failures).toEqual([]);
    });

    it('lists: only the visible product’s records, totals to match, and a filter on the hidden product finds none', async () => {
      const failures: string[] = [];
      for (const o of owned('list')) {
        const f = fixtureOf(o);
        const all = await call('get', `${o.path}?limit=100`, key);
        const ids = ((all.body as Json).data as Json[] | undefined)?.map((r) => r._id) ?? [];
        if (all.status !== 200 || !ids.includes(f.visible) || ids.includes(f.hidden))
          failures.push(
            `${nameOf(o)}: ${all.status}, lists ${JSON.stringify(ids)} (visible ${f.visible}, hidden ${f.hidden})`,
          );
        if ((all.body as Json).total !== ids.length)
          failures.push(`${nameOf(o)}: total ${String((all.body as Json).total)} for ${ids.length} listed`);
        const field = o.queryParams.includes('product_id') ? 'product_id' : '_id';
        const filtered = await call('get', `${o.path}?${field}=${id.hidden}`, key);
        if (filtered.status !== 200 || (filtered.body as Json).total !== 0)
          failures.push(
            `${nameOf(o)}: ${field}=<hidden> answered ${filtered.status}, total ${String((filtered.body as Json).total)}`,
          );
        probed.add(o.operationId);
      }
      expect(failures).toEqual([]);
    });

    it('writes: every write or action on a record of the hidden product is a 404 error object, and changes nothing', async () => {
      const before = new Map<string, unknown>();
      for (const [path, f] of Object.entries(fixtures))
        before.set(path, f.kept((await admin('GET', `/${path}/${f.hidden}`)).json));
      const failures: string[] = [];
      // Deletes last: if one were let through, the other writes would still be probed on a live record.
      const writes = owned('write').sort((x, y) => Number(x.method === 'delete') - Number(y.method === 'delete'));
      for (const o of writes) {
        const f = fixtureOf(o);
        const what = o.path.split('/').length > 5 ? o.path.split('/').pop()! : o.method;
        if (!(what in f.writes)) {
          failures.push(`${nameOf(o)}: the census has no body for '${what}' in its fixture`);
          continue;
        }
        const body = f.writes[what] ?? undefined;
        failures.push(...refusal(o, await call(o.method, pathWith(o.path, { id: f.hidden }), key, body), 404));
        probed.add(o.operationId);
      }
      for (const [path, f] of Object.entries(fixtures)) {
        const now = await admin('GET', `/${path}/${f.hidden}`);
        if (now.status !== 200) failures.push(`${path}/${f.hidden} is gone: ${now.status}`);
        else expect([path, f.kept(now.json)]).toEqual([path, before.get(path)]);
      }
      expect(failures).toEqual([]);
    });

    it('creates: naming the hidden product is answered as naming no product at all', async () => {
      const failures: string[] = [];
      for (const o of owned('create')) {
        const f = fixtureOf(o);
        if (!f.create) {
          failures.push(`${nameOf(o)}: the census has no create body in its fixture`);
          continue;
        }
        const hidden = await call('post', o.path, key, f.create(id.hidden));
        const none = await call('post', o.path, key, f.create('6740a1b2c3d4e5f60000dead'));
        const shape = (a: Answer) => {
          const b = a.body as Json;
          return { status: a.status, kind: b.kind, details: (b.details as Json[] | undefined)?.map((d) => d.field) };
        };
        if (hidden.status < 400 || hidden.status >= 500)
          failures.push(`${nameOf(o)}: naming the hidden product answered ${hidden.status}`);
        else failures.push(...refusal(o, hidden, hidden.status));
        if (JSON.stringify(shape(hidden)) !== JSON.stringify(shape(none)))
          failures.push(`${nameOf(o)}: hidden ${JSON.stringify(shape(hidden))} ≠ none ${JSON.stringify(shape(none))}`);
        probed.add(o.operationId);
      }
      expect(failures).toEqual([]);
    });

    it('runs the operations of their own shape through their probes', async () => {
      // getChannelReadiness
      const readiness = ops.find((o) => o.operationId === 'getChannelReadiness')!;
      const at = (product: string) => `${pathWith(readiness.path, { id: id.channel })}?product_id=${product}`;
      expect(refusal(readiness, await call('get', at(id.hidden), key), 404)).toEqual([]);
      expect((await call('get', at(id.visible), key)).status).toBe(200);
      probed.add(readiness.operationId);

      // bulkUpsertProducts
      const bulk = ops.find((o) => o.operationId === 'bulkUpsertProducts')!;
      const item = (code: string, catalog: unknown[]) => ({
        code,
        type: 'simple',
        name: { en: `Census ${code}` },
        catalogs: catalog,
      });
      const visible = (await admin('GET', `/products/${id.visible}`)).json;
      const upserted = await call('post', bulk.path, key, {
        items: [item('census_hidden', []), item('census_visible', visible.catalogs as unknown[])],
      });
      expect(upserted.status).toBe(200);
      expect(
        ((upserted.body as Json).data as Json[]).map((r) => [
          r.code,
          r.status === 'failed' ? (r.error as Json).code : 'written',
        ]),
      ).toEqual([
        ['census_hidden', 409],
        ['census_visible', 'written'],
      ]);
      probed.add(bulk.operationId);

      // publishInBulk: it runs as its creator, so the hidden product is not selected.
      const publish = ops.find((o) => o.operationId === 'publishInBulk')!;
      for (const [product, expected] of [
        [id.hidden, 0],
        [id.visible, 1],
      ] as const) {
        const batch = await call('post', publish.path, key, { channel_id: id.channel, filters: { _id: product } });
        expect(batch.status).toBe(202);
        let now: Json = {};
        await eventually(async () => {
          now = (await admin('GET', `/publication-batches/${(batch.body as Json)._id as string}`)).json;
          return now.status === 'completed';
        }, 20_000);
        expect([product, now.products_count, now.publications_count]).toEqual([product, expected, expected]);
      }
      probed.add(publish.operationId);
      expect(Object.keys(SPECIAL_PROBES).filter((op) => !probed.has(op))).toEqual([]);
    });

    it('has probed every operation that reaches records of products', () => {
      const planned = [...plan].filter(([, v]) => v.class === 'product-owned').map(([op]) => op);
      console.log(`census (c): ${planned.length} operations on records of products probed with a restricted user`);
      expect(planned.filter((op) => !probed.has(op))).toEqual([]);
    });
  });
  describe('(d) a user from whom an attribute is hidden', () => {
    const USER = '6740a1b2c3d4e5f6000000c7';
    const KEY = 'census_cost';
    let key: string;
    let product: string;
    let channel: string;
    let attribute: string;
    let hiddenPlan: Map<string, HiddenProbe>;

    beforeAll(async () => {
      const planned = hiddenAttributePlan(doc, ops);
      expect(planned.problems).toEqual([]);
      hiddenPlan = planned.plan;
      const made = async (path: string, body: unknown): Promise<string> => {
        const r = await admin('POST', path, body);
        if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(r.json)}`);
        return r.json._id as string;
      };
      // Every product in sight (full access): only the attribute is hidden.
      const group = await made('/users-groups', {
        source_id: 'sso',
        name: 'census costs',
        users: [{ id: USER, name: 'Hana' }],
        has_full_product_access: true,
      });
      const secret = await made('/attribute-groups', {
        key: 'census_secret',
        name: { en: 'Secret' },
        users_groups: [{ _id: group, not_allowed_users: [USER] }],
      });
      attribute = await made('/attributes', {
        key: KEY,
        name: { en: 'Cost' },
        type: 'number',
        association: 'product',
        protected_by_lgpd: false,
        groups: [{ _id: secret, required: false }],
      });
      product = await made('/products', {
        code: 'census_costly',
        type: 'simple',
        name: { en: 'Census costly' },
        attribute_groups: [secret],
        attributes: { [KEY]: 12.5 },
      });
      channel = await made('/channels', {
        code: 'census_hidden_shop',
        name: 'Census hidden shop',
        endpoint: { url: 'http://127.0.0.1:9/listings', timeout_ms: 1_000 },
      });
      const scopes = [...new Set(ops.filter((o) => hiddenPlan.has(o.operationId)).map((o) => o.scope))];
      key = await newKey(scopes, { user_id: USER, user_name: 'Hana' });
    }, 60_000);

    /** What is wrong with an answer that should be the 403 naming the hidden attribute. */
    const hiddenRefusal = (o: Operation, a: Answer, what: string): string[] => [
      ...refusal(o, a, 403).map((p) => `${p} (${what})`),
      ...(a.status === 403 && !JSON.stringify((a.body as Json).details ?? []).includes(KEY)
        ? [`${nameOf(o)}: the 403 of ${what} does not name ${KEY}`]
        : []),
    ];

    it('plans every operation that takes product filters or columns, and would name one it cannot check', () => {
      expect([...hiddenPlan.keys()].sort()).toEqual(
        ['createExport', 'createWorkflowApproval', 'listProducts', 'publishInBulk'].sort(),
      );
      const grown = structuredClone(doc);
      grown.paths['/api/v1/products/facets'] = {
        post: { ...(doc.paths['/api/v1/publications/bulk'].post as OpenApiOperation), operationId: 'productFacets' },
      };
      expect(hiddenAttributePlan(grown, operationsOf(grown)).problems).toEqual([
        expect.stringContaining('POST /api/v1/products/facets (productFacets) takes filters in its body'),
      ]);
    });

    it('refuses every filter and column naming the hidden attribute with the 403 error object, and stores nothing', async () => {
      const failures: string[] = [];
      for (const o of ops.filter((x) => hiddenPlan.has(x.operationId))) {
        const probe = hiddenPlan.get(o.operationId)!;
        if (probe.kind === 'query') {
          for (const [suffix, value] of ATTRIBUTE_FILTERS) {
            const q = `attributes.${KEY}${suffix}=${encodeURIComponent(value)}`;
            failures.push(...hiddenRefusal(o, await call('get', `${o.path}?${q}`, key), q));
            failures.push(...hiddenRefusal(o, await call('get', `${o.path}?_id=${product}&${q}`, key), `_id and ${q}`));
          }
          continue;
        }
        const before = (await admin('GET', `${probe.stores.replace('/api/v1', '')}?limit=1`)).json.total;
        for (const body of probe.bodies(KEY, { channel, product, attribute }))
          failures.push(...hiddenRefusal(o, await call(o.method, o.path, key, body), JSON.stringify(body)));
        const after = (await admin('GET', `${probe.stores.replace('/api/v1', '')}?limit=1`)).json.total;
        if (after !== before)
          failures.push(`${nameOf(o)}: ${probe.stores} went from ${String(before)} to ${String(after)}`);
      }
      expect(failures).toEqual([]);
    });

    it('lets the binary search of a hidden value find nothing: every probe answers the same refusal', async () => {
      const answers = new Set<string>();
      let [low, high] = [0, 1024];
      for (let i = 0; i < 11; i++) {
        const mid = (low + high) / 2;
        const a = await call('get', `/api/v1/products?_id=${product}&attributes.${KEY}_gte=${mid}`, key);
        const body = a.body as Json;
        answers.add(`${a.status} ${String(body.message)}`);
        if (a.status === 200 && (body.total as number) > 0) low = mid;
        else high = mid;
      }
      expect([...answers]).toEqual([`403 You may not query the attributes '${KEY}'`]);
      // An unrestricted key reads the same filter: the refusal is about the user, not the filter.
      const admins = await admin('GET', `/products?_id=${product}&attributes.${KEY}_gte=12`);
      expect([admins.status, admins.json.total]).toEqual([200, 1]);
    });
  });
});
