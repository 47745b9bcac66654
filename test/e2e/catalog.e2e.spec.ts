import { apps } from '../../tools/start/apps';
import { eventually, startE2E, type E2E } from './platform';

type Json = Record<string, unknown>;

// HTTP → gateway → gRPC → catalog app → Postgres schema → outbox → JetStream, driven only over HTTP.
// Runs once the catalog app is part of `npm start` (tools/start/apps.ts).
const wired = apps.some((a) => a.name === 'catalog');

(wired ? describe : describe.skip)('catalog taxonomy through the whole platform', () => {
  let e2e: E2E;

  beforeAll(async () => {
    e2e = await startE2E('e2ecatalog');
  });

  afterAll(async () => {
    await e2e?.close();
  });

  it('keeps a category tree: create, move a subtree, list a subtree with expand, refuse cycles and deletes with children', async () => {
    const tree = (await e2e.api('POST', '/api/v1/category-trees', { code: 'master', name: { en: 'Master' } })).json;
    const mk = async (code: string, parent?: Json) => {
      const r = await e2e.api('POST', '/api/v1/categories', {
        code,
        name: { pt: code },
        category_tree_id: tree._id,
        ...(parent ? { parent_id: parent._id } : {}),
      });
      expect(r.status).toBe(201);
      return r.json;
    };
    const root = await mk('root');
    const shoes = await mk('shoes', root);
    const boots = await mk('boots', shoes);
    const hats = await mk('hats', root);

    const cycle = await e2e.api('PATCH', `/api/v1/categories/${root._id}`, { parent_id: boots._id });
    expect(cycle.status).toBe(409);
    expect(cycle.json).toMatchObject({ code: 409, kind: 'conflict', name: 'ConflictError' });

    const moved = await e2e.api(
      'PATCH',
      `/api/v1/categories/${shoes._id}`,
      { parent_id: hats._id },
      { 'if-match': '"1"' },
    );
    expect(moved.status).toBe(200);
    expect(moved.headers.get('etag')).toBe('"2"');
    const sub = await e2e.api(
      'GET',
      `/api/v1/categories?categories_in_children=${hats._id}&expand=parent,category_tree&sort=code`,
    );
    expect(sub.status).toBe(200);
    expect(
      (sub.json.data as Json[]).map((c) => [c.code, (c.parent as Json | null)?.code, (c.category_tree as Json).code]),
    ).toEqual([
      ['boots', 'shoes', 'master'],
      ['hats', 'root', 'master'],
      ['shoes', 'hats', 'master'],
    ]);

    const withChildren = await e2e.api('DELETE', `/api/v1/categories/${hats._id}`);
    expect(withChildren.status).toBe(409);
    expect(withChildren.json.message).toContain('1 live child');
    expect((await e2e.api('DELETE', `/api/v1/categories/${boots._id}`)).status).toBe(204);
    expect((await e2e.api('GET', `/api/v1/categories/${boots._id}`)).status).toBe(404);

    await eventually(
      async () => (await e2e.stream.messages(`${e2e.stream.subjectPrefix}pim.catalog.categories.>`)).length === 6,
    );
  });

  it('finds "cafe" in a brand named {"pt":"Café"}, keeps codes unique and needs the scopes', async () => {
    const cafe = await e2e.api('POST', '/api/v1/brands', { code: 'cafe_do_ponto', name: { pt: 'Café' } });
    expect(cafe.status).toBe(201);
    expect((await e2e.api('POST', '/api/v1/brands', { code: 'cafe_do_ponto', name: { en: 'Again' } })).status).toBe(
      409,
    );
    const found = await e2e.api('GET', '/api/v1/brands?_search=cafe');
    expect((found.json.data as Json[]).map((b) => b._id)).toEqual([cafe.json._id]);

    const reader = await e2e.newKey(['brands:read']);
    expect((await e2e.api('GET', '/api/v1/brands', undefined, { authorization: `Bearer ${reader}` })).status).toBe(200);
    expect(
      (await e2e.api('POST', '/api/v1/brands', { code: 'x', name: { en: 'X' } }, { authorization: `Bearer ${reader}` }))
        .status,
    ).toBe(403);
    expect((await e2e.api('GET', '/api/v1/families', undefined, { authorization: `Bearer ${reader}` })).status).toBe(
      403,
    );
  });
});
