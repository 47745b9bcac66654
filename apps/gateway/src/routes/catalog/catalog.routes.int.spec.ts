import { LIST_ENVELOPE_KEYS } from '@pim/query';
import { catalogHarness, type CatalogHarness } from '../../testing/catalog.harness';

type Json = Record<string, unknown>;
const ENVELOPE_KEYS = [...LIST_ENVELOPE_KEYS];

// HTTP → the gateway's catalog routes → gRPC → the catalog app (its own process) → Postgres,
// outbox → JetStream. Only the API-key gate is stood in for.
describe('catalog taxonomy routes over HTTP', () => {
  let h: CatalogHarness;

  beforeAll(async () => {
    h = await catalogHarness();
  });

  afterAll(async () => {
    await h?.close();
  });

  it('creates (201, ETag, Location), reads (304 on a matching If-None-Match) and lists brands in the envelope; _search folds accents', async () => {
    const created = await h.request(
      'POST',
      '/api/v1/brands',
      { code: 'cafe_bom', name: { pt: 'Café Bom' }, tags: ['br'] },
      { 'x-test-user': 'Ana' },
    );
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toBe('"1"');
    expect(created.headers.get('location')).toBe(`/api/v1/brands/${created.json._id}`);
    expect(created.json).toMatchObject({
      code: 'cafe_bom',
      name: { pt: 'Café Bom' },
      description: {},
      enabled: true,
      tags: ['br'],
      version: 1,
      created_by_name: 'Ana',
    });

    const got = await h.request('GET', `/api/v1/brands/${created.json._id}`);
    expect(got.json).toEqual(created.json);
    expect(
      (await h.request('GET', `/api/v1/brands/${created.json._id}`, undefined, { 'if-none-match': '"1"' })).status,
    ).toBe(304);

    await h.request('POST', '/api/v1/brands', { code: 'tea', name: { en: 'Tea' }, enabled: false });
    const list = await h.request('GET', '/api/v1/brands?_search=CAFE&enabled=true&limit=10');
    expect(Object.keys(list.json)).toEqual(ENVELOPE_KEYS);
    expect(list.json).toMatchObject({
      page: 1,
      limit: 10,
      total: 1,
      filters: { enabled: true },
      sort: { created_at: 'desc' },
    });
    expect((list.json.data as Json[]).map((b) => b.code)).toEqual(['cafe_bom']);
  });

  it('answers the error objects: 400 body and filter problems, 409 code taken, 412 stale If-Match, 404 after delete', async () => {
    const bad = await h.request('POST', '/api/v1/catalogs', { code: 'has\ttab', name: {}, user_groups: ['x'] });
    expect(bad.status).toBe(400);
    expect((bad.json.details as { field: string }[]).map((d) => d.field).sort()).toEqual([
      'code',
      'name',
      'user_groups.0',
    ]);
    const filter = await h.request('GET', '/api/v1/catalogs?colour=red');
    expect(filter.status).toBe(400);
    expect(filter.json.message).toContain('colour');
    expect((await h.request('GET', '/api/v1/catalogs/not-an-id')).status).toBe(400);

    const catalog = await h.request('POST', '/api/v1/catalogs', { code: 'b2b', name: { en: 'B2B' } });
    const taken = await h.request('POST', '/api/v1/catalogs', { code: 'b2b', name: { en: 'Again' } });
    expect(taken.status).toBe(409);
    expect(taken.json).toMatchObject({
      kind: 'conflict',
      name: 'ConflictError',
      details: [{ field: 'code', message: 'already taken' }],
    });
    expect(taken.json.message).toContain("'b2b'");

    const path = `/api/v1/catalogs/${catalog.json._id}`;
    const buyers = await h.newUsersGroup();
    const patched = await h.request(
      'PATCH',
      path,
      { name: { pt: 'B2B' }, user_groups: [buyers] },
      { 'if-match': '"1"' },
    );
    expect(patched.status).toBe(200);
    expect(patched.headers.get('etag')).toBe('"2"');
    expect(patched.json).toMatchObject({ name: { en: 'B2B', pt: 'B2B' }, user_groups: [buyers] });
    const stale = await h.request('PUT', path, { code: 'b2b', name: { en: 'B2B' } }, { 'if-match': '"1"' });
    expect(stale.status).toBe(412);
    expect(stale.json.kind).toBe('precondition');
    expect((await h.request('DELETE', path, undefined, { 'if-match': '"2"' })).status).toBe(204);
    expect((await h.request('GET', path)).status).toBe(404);
    // Moved from the catalog's service test: the owner names the list, the gateway writes its path.
    const missing = (await h.request('GET', '/api/v1/brands/6740a1b2c3d4e5f601234567')).json;
    expect(missing.solution).toContain('/api/v1/brands');
  });

  it('serves category trees: subtree filter, expand with one BatchGet per name, cycles and deletes refused with 409', async () => {
    const tree = (await h.request('POST', '/api/v1/category-trees', { code: 'master', name: { en: 'Master' } })).json;
    const mk = async (code: string, parent?: Json) =>
      (
        await h.request('POST', '/api/v1/categories', {
          code,
          name: { en: code },
          category_tree_id: tree._id,
          ...(parent ? { parent_id: parent._id } : {}),
        })
      ).json;
    const root = await mk('root');
    const shoes = await mk('shoes', root);
    const boots = await mk('boots', shoes);
    await mk('hats', root);

    const calls: string[] = [];
    for (const name of ['categories', 'categoryTrees'] as const) {
      const client = h.clients[name];
      const real = client.batchGet.bind(client);
      client.batchGet = (req) => {
        calls.push(name);
        return real(req);
      };
    }
    const sub = await h.request(
      'GET',
      `/api/v1/categories?categories_in_children=${shoes._id}&expand=category_tree,parent&sort=code`,
    );
    expect(sub.status).toBe(200);
    const data = sub.json.data as Json[];
    expect(data.map((c) => c.code)).toEqual(['boots', 'shoes']);
    expect(Object.keys(data[0])).toEqual([
      '_id',
      'code',
      'name',
      'description',
      'enabled',
      'tags',
      'category_tree_id',
      'category_tree',
      'parent_id',
      'parent',
      'version',
      'created_at',
      'updated_at',
      'created_by_name',
    ]);
    expect(data[0]).toMatchObject({
      category_tree: { _id: tree._id, code: 'master' },
      parent: { _id: shoes._id, code: 'shoes' },
    });
    expect(data[1]).toMatchObject({ parent: { _id: root._id, code: 'root' } });
    expect(calls.sort()).toEqual(['categories', 'categoryTrees']);
    const rootOnly = await h.request('GET', `/api/v1/categories?parent_id_exists=false&expand=parent`);
    expect((rootOnly.json.data as Json[]).map((c) => [c.code, c.parent])).toEqual([['root', null]]);
    const noScope = await h.request('GET', '/api/v1/categories?expand=category_tree', undefined, {
      'x-test-scopes': 'categories:read',
    });
    expect(noScope.status).toBe(403);

    const cycle = await h.request('PATCH', `/api/v1/categories/${root._id}`, { parent_id: boots._id });
    expect(cycle.status).toBe(409);
    expect(cycle.json.message).toContain(`'root' (${root._id})`);
    expect(cycle.json.message).toContain(`'boots' (${boots._id})`);
    const withChildren = await h.request('DELETE', `/api/v1/categories/${root._id}`);
    expect(withChildren.status).toBe(409);
    expect(withChildren.json.message).toContain('2 live children');
    const moved = await h.request('PATCH', `/api/v1/categories/${shoes._id}`, { parent_id: null });
    expect(moved.json).not.toHaveProperty('parent_id');
    const under = await h.request('GET', `/api/v1/categories?categories_in_children=${root._id}&sort=code`);
    expect((under.json.data as Json[]).map((c) => c.code)).toEqual(['hats', 'root']);
  });

  it('round-trips family attributes with _id, and publishes every write as an event', async () => {
    const attribute = await h.request('POST', '/api/v1/attributes', {
      key: 'shoe_size',
      association: 'sku',
      protected_by_lgpd: false,
    });
    const attributes = [{ _id: attribute.json._id, required: true }];
    const family = await h.request('POST', '/api/v1/families', { code: 'shoes', name: { en: 'Shoes' }, attributes });
    expect(family.status).toBe(201);
    expect(family.json).toMatchObject({ attribute_groups: [], attributes });
    const replaced = await h.request('PUT', `/api/v1/families/${family.json._id}`, {
      code: 'shoes',
      name: { en: 'Shoes' },
    });
    expect(replaced.json).toMatchObject({ attributes: [], version: 2 });

    const subject = `${h.stream.subjectPrefix}pim.catalog.families.>`;
    let msgs = await h.stream.messages(subject);
    for (let i = 0; i < 100 && msgs.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 50));
      msgs = await h.stream.messages(subject);
    }
    expect(msgs.map((m) => (m.data as Json).type)).toEqual(['families.created', 'families.updated']);
    expect((msgs[0].data as Json).data).toEqual(family.json);
  });

  it('describes every route in the OpenAPI document', () => {
    const paths = Object.keys(h.document.paths ?? {});
    for (const p of ['brands', 'category-trees', 'categories', 'families', 'catalogs']) {
      expect(paths).toEqual(expect.arrayContaining([`/api/v1/${p}`, `/api/v1/${p}/{id}`]));
    }
    const schemas = Object.keys(h.document.components?.schemas ?? {});
    expect(schemas).toEqual(
      expect.arrayContaining([
        'Category',
        'CategoryInput',
        'CategoryPatch',
        'CategoryList',
        'CategoryListItem',
        'Translate',
        'FamilyAttribute',
      ]),
    );
    const list = (
      h.document.paths?.['/api/v1/categories'] as { get: { parameters: { name: string; description?: string }[] } }
    ).get;
    expect(list.parameters.find((p) => p.name === 'categories_in_children')?.description).toContain(
      'all its descendants',
    );
  });
});
