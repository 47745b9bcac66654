import { catalogHarness, type CatalogHarness } from '../../testing/catalog.harness';

type Json = Record<string, unknown>;

// HTTP → the gateway's product routes → gRPC → the catalog app (its own process) → Postgres.
describe('catalog product routes over HTTP', () => {
  let h: CatalogHarness;

  beforeAll(async () => {
    h = await catalogHarness();
  });

  afterAll(async () => {
    await h?.close();
  });

  it('creates, reads back exactly, searches, expands, patches with If-Match and bulk upserts products', async () => {
    const group = (await h.request('POST', '/api/v1/attribute-groups', { key: 'offer', name: { en: 'Offer' } })).json;
    const attribute = (key: string, extra: Record<string, unknown>) =>
      h.request('POST', '/api/v1/attributes', {
        key,
        association: 'product',
        protected_by_lgpd: false,
        groups: [{ _id: group._id }],
        ...extra,
      });
    await attribute('price', { type: 'price', type_config: { currencies: ['BRL'] } });
    await attribute('weight', { type: 'metric', type_config: { units: ['kg'] } });
    await attribute('launch', { type: 'date' });
    await attribute('blurb', { type: 'text', type_config: { localizable: true } });
    const brand = (await h.request('POST', '/api/v1/brands', { code: 'acme', name: { en: 'Acme' } })).json;

    const body = {
      code: 'cafe-1',
      name: { pt: 'Café', en: 'Coffee' },
      type: 'simple',
      brand_id: brand._id,
      attribute_groups: [group._id],
      attributes: {
        price: { amount: 19.9, currency: 'BRL' },
        weight: { amount: 0.5, unit: 'kg' },
        launch: '2026-03-01',
        blurb: { pt: 'Forte' },
      },
    };
    const created = await h.request('POST', '/api/v1/products', body);
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ ...body, completeness: { pt: 100, en: 100 }, version: 1 });
    expect(await h.request('GET', `/api/v1/products/${created.json._id}`)).toMatchObject({
      status: 200,
      json: created.json,
    });

    // Without expand the page travels as the catalog serialized it: the same record, the same envelope.
    const plain = await h.request('GET', '/api/v1/products?_search=cafe');
    expect(plain.status).toBe(200);
    expect(plain.json).toMatchObject({ page: 1, total: 1, pages: 1, next: false, data: [created.json] });
    expect(plain.headers.get('content-type')).toMatch(/^application\/json/);

    const found = await h.request('GET', '/api/v1/products?_search=cafe&expand=brand');
    const page = found.json.data as Json[];
    expect(page).toHaveLength(1);
    expect(page[0].brand).toMatchObject({ _id: brand._id, code: 'acme' });

    const filtered = await h.request(
      'GET',
      '/api/v1/products?attributes.weight_exists=true&attributes.launch=2026-03-01',
    );
    expect((filtered.json.data as Json[]).map((p) => p.code)).toEqual(['cafe-1']);
    expect(filtered.json.filters).toEqual({ 'attributes.weight_exists': true, 'attributes.launch': '2026-03-01' });
    expect((await h.request('GET', '/api/v1/products?attributes.launch_gt=2026-04-01')).json.data).toEqual([]);
    const wrongType = await h.request('GET', '/api/v1/products?attributes.weight=1');
    expect(wrongType.status).toBe(400);
    expect(wrongType.json.details).toEqual([
      { field: 'attributes.weight', message: 'metric attributes can only be filtered with _exists' },
    ]);

    const bad = await h.request('POST', '/api/v1/products', {
      ...body,
      code: 'bad',
      attributes: { price: { amount: -1, currency: 'USD' }, launch: 'soon' },
    });
    expect(bad.status).toBe(400);
    expect((bad.json.details as { field: string }[]).map((d) => d.field)).toEqual([
      'attributes.price.amount',
      'attributes.price.currency',
      'attributes.launch',
    ]);

    const stale = await h.request(
      'PATCH',
      `/api/v1/products/${created.json._id}`,
      { tags: ['x'] },
      { 'if-match': '"9"' },
    );
    expect(stale.status).toBe(412);

    const bulk = await h.request('POST', '/api/v1/products/bulk', {
      items: [
        { ...body, name: { pt: 'Café forte' } },
        { code: 'tea', name: { en: 'Tea' }, type: 'simple' },
        { code: 'broken', type: 'nope' },
      ],
    });
    expect(bulk.status).toBe(200);
    const results = bulk.json.data as Json[];
    expect(results.map((r) => r.status)).toEqual(['updated', 'created', 'failed']);
    expect(results[0]._id).toBe(created.json._id);
    expect(results[2]).toMatchObject({ index: 2, code: 'broken', error: { code: 400, kind: 'validation' } });
  });

  it('expands the id lists in place and the catalog links inside, with one BatchGet per name for the page', async () => {
    const tree = (await h.request('POST', '/api/v1/category-trees', { code: 'x-tree', name: { en: 'Tree' } })).json;
    const category = async (code: string) =>
      (await h.request('POST', '/api/v1/categories', { code, name: { en: code }, category_tree_id: tree._id })).json;
    const [drinks, hot] = [await category('x-drinks'), await category('x-hot')];
    const catalog = (await h.request('POST', '/api/v1/catalogs', { code: 'x-shop', name: { en: 'Shop' } })).json;
    const group = (await h.request('POST', '/api/v1/attribute-groups', { key: 'x-group', name: { en: 'Group' } })).json;
    const links = {
      category_trees: [tree._id],
      attribute_groups: [group._id],
      catalogs: [{ _id: catalog._id, user_groups: [] }],
    };
    const first = (
      await h.request('POST', '/api/v1/products', {
        code: 'x-1',
        name: { en: 'One' },
        type: 'simple',
        categories: [hot._id, drinks._id],
        ...links,
      })
    ).json;
    await h.request('POST', '/api/v1/products', {
      code: 'x-2',
      name: { en: 'Two' },
      type: 'simple',
      categories: [drinks._id],
      ...links,
    });

    const calls: string[] = [];
    for (const name of ['categories', 'categoryTrees', 'catalogs', 'attributeGroups'] as const) {
      // The four clients differ only in their record type; counting calls needs none of it.
      const client = h.clients[name] as unknown as { batchGet: (req: unknown) => Promise<unknown> };
      const real = client.batchGet.bind(client);
      client.batchGet = (req) => {
        calls.push(name);
        return real(req);
      };
    }
    const expanded = await h.request(
      'GET',
      '/api/v1/products?code_in=x-1,x-2&sort=code&expand=categories,category_trees,catalogs,attribute_groups',
    );
    expect(expanded.status).toBe(200);
    const [one, two] = expanded.json.data as Json[];
    // In the order the product names them, each record keeping its _id.
    expect(one.categories).toEqual([
      expect.objectContaining({ _id: hot._id, code: 'x-hot' }),
      expect.objectContaining({ _id: drinks._id, code: 'x-drinks' }),
    ]);
    expect(two.categories).toEqual([
      expect.objectContaining({ _id: drinks._id, code: 'x-drinks', category_tree_id: tree._id }),
    ]);
    expect(one.category_trees).toEqual([expect.objectContaining({ _id: tree._id, code: 'x-tree' })]);
    expect(one.attribute_groups).toEqual([expect.objectContaining({ _id: group._id, key: 'x-group' })]);
    expect(one.catalogs).toEqual([
      { _id: catalog._id, user_groups: [], catalog: expect.objectContaining({ _id: catalog._id, code: 'x-shop' }) },
    ]);
    expect(calls.sort()).toEqual(['attributeGroups', 'catalogs', 'categories', 'categoryTrees']);

    const plain = await h.request('GET', `/api/v1/products?code=x-1`);
    expect((plain.json.data as Json[])[0]).toMatchObject({
      categories: [hot._id, drinks._id],
      category_trees: [tree._id],
      catalogs: [{ _id: catalog._id, user_groups: [] }],
    });
    expect(first.categories).toEqual([hot._id, drinks._id]);

    const noScope = await h.request('GET', '/api/v1/products?expand=categories', undefined, {
      'x-test-scopes': 'products:read',
    });
    expect(noScope.status).toBe(403);
    const withScope = await h.request('GET', '/api/v1/products?code=x-1&expand=categories', undefined, {
      'x-test-scopes': 'products:read,categories:read',
    });
    expect(withScope.status).toBe(200);
    const unknown = await h.request('GET', '/api/v1/products?expand=tags');
    expect(unknown.status).toBe(400);
    expect(unknown.json.message).toBe(
      "Cannot expand 'tags'. Allowed: family, brand, categories, category_trees, product, catalogs, attribute_groups",
    );
  });
});
