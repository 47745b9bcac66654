import 'reflect-metadata';
import { AuthorizationError, NotFoundError, type ValidationError } from '@pim/errors';
import { runWithContext, type ProductAccess } from '@pim/logging';
import type { ProductView } from '@pim/resources';
import { useCatalogContext, type CatalogTestContext } from '../testing/catalog.context';

// Who sees which products (docs/decisions/access.md), at the products' service over the real
// Postgres: the caller's access comes in the request context, as the gRPC server sets it.
describe('product access by users groups', () => {
  let ctx: CatalogTestContext;
  useCatalogContext((c) => (ctx = c));

  const g = { g1: 'aaaaaaaaaaaaaaaaaaaaaaa1', g2: 'aaaaaaaaaaaaaaaaaaaaaaa2', g3: 'aaaaaaaaaaaaaaaaaaaaaaa3' };
  const as = <T>(access: Partial<ProductAccess>, fn: () => Promise<T>): Promise<T> =>
    runWithContext(
      {
        requestId: 'r',
        actor: { user_id: 'u', access: { user_id: 'u', all_products: false, groups: [], ...access } },
      },
      fn,
    );
  const codes = (ps: { code: string }[]) => ps.map((p) => p.code).sort();

  async function world() {
    const c1 = await ctx.newCatalog({ code: 'c1', user_groups: [] });
    const c2 = await ctx.newCatalog({ code: 'c2', user_groups: [] });
    // Catalogs name users groups the workflow app must know: written straight, as a test fixture.
    await ctx.ds.query(`UPDATE catalog.catalogs SET user_groups = $1 WHERE _id = $2`, [[g.g1], c1._id]);
    await ctx.ds.query(`UPDATE catalog.catalogs SET user_groups = $1 WHERE _id = $2`, [[g.g2], c2._id]);
    const link = (id: string, user_groups: string[] = []) => ({ _id: id, user_groups });
    await ctx.newProduct({ code: 'none' });
    await ctx.newProduct({ code: 'in_c1', catalogs: [link(c1._id)], name: { en: 'Blue kettle' } });
    await ctx.newProduct({ code: 'in_c2', catalogs: [link(c2._id)], name: { en: 'Blue mug' } });
    await ctx.newProduct({ code: 'in_both', catalogs: [link(c1._id), link(c2._id)] });
    await ctx.newProduct({ code: 'linked_g3', catalogs: [link(c2._id, [g.g3])] });
    return { c1, c2 };
  }

  it('keeps lists, totals, search, gets and batch gets to the catalogs of the caller’s groups', async () => {
    await world();
    const products = ctx.services.products;
    const list = (search?: string) =>
      products.list({
        page: 1,
        limit: 2,
        skip: 0,
        filters: [],
        sort: [{ field: 'code', direction: 'asc' }],
        expand: [],
        search,
      });
    const everything = ['in_both', 'in_c1', 'in_c2', 'linked_g3', 'none'];
    expect((await list()).total).toBe(5);
    expect((await as({ all_products: true }, () => list())).total).toBe(5);

    const g1 = await as({ groups: [g.g1] }, () => list());
    expect(g1).toMatchObject({ total: 2 });
    expect(codes(g1.data)).toEqual(['in_both', 'in_c1']);
    expect((await as({ groups: [g.g2] }, () => list())).total).toBe(3);
    expect((await as({ groups: [g.g3] }, () => list())).total).toBe(1); // the entry's own user_groups
    expect((await as({ groups: [] }, () => list())).total).toBe(0);
    expect((await as({ groups: [g.g1] }, () => list('blue'))).data.map((p) => p.code)).toEqual(['in_c1']);

    const all = (await products.list({ page: 1, limit: 10, skip: 0, filters: [], sort: [], expand: [] })).data;
    expect(codes(all)).toEqual(everything);
    const id = (code: string) => all.find((p) => p.code === code)!._id;
    await expect(as({ groups: [g.g1] }, () => products.get(id('in_c2')))).rejects.toBeInstanceOf(NotFoundError);
    await expect(as({ groups: [g.g1] }, () => products.getJson(id('none')))).rejects.toBeInstanceOf(NotFoundError);
    expect((await as({ groups: [g.g1] }, () => products.getJson(id('in_c1')))).id).toBe(id('in_c1'));
    const batch = await as({ groups: [g.g2] }, () =>
      products.batchGet(
        all.map((p) => p._id),
        ['none'],
      ),
    );
    expect(codes(batch)).toEqual(['in_both', 'in_c2', 'linked_g3']);
    const scanned: ProductView[] = [];
    await as({ groups: [g.g1] }, async () => {
      for await (const b of products.scan({ filters: [] }, 1)) scanned.push(...b);
    });
    expect(codes(scanned)).toEqual(['in_both', 'in_c1']);
  });

  it('refuses writes to products out of sight as unknown, and writes that would put one out of sight', async () => {
    const { c1, c2 } = await world();
    const products = ctx.services.products;
    const byCode = async (code: string) => (await products.batchGet([], [code]))[0];
    const inC2 = await byCode('in_c2');
    await expect(as({ groups: [g.g1] }, () => products.patch(inC2._id, { tags: ['x'] }))).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(as({ groups: [g.g1] }, () => products.remove(inC2._id))).rejects.toBeInstanceOf(NotFoundError);
    const inC1 = await byCode('in_c1');
    await expect(
      as({ groups: [g.g1] }, () => products.patch(inC1._id, { catalogs: [{ _id: c2._id, user_groups: [] }] })),
    ).rejects.toBeInstanceOf(AuthorizationError);
    await expect(
      as({ groups: [g.g1] }, () =>
        products.create({
          code: 'new_c2',
          name: { en: 'New' },
          type: 'simple',
          catalogs: [{ _id: c2._id, user_groups: [] }],
        }),
      ),
    ).rejects.toBeInstanceOf(AuthorizationError);
    const made = await as({ groups: [g.g1] }, () =>
      products.create({
        code: 'new_c1',
        name: { en: 'New' },
        type: 'simple',
        catalogs: [{ _id: c1._id, user_groups: [] }],
      }),
    );
    expect(made.code).toBe('new_c1');
    expect((await byCode('in_c2')).version).toBe(inC2.version);
    expect(await byCode('new_c2')).toBeUndefined();
    expect((await byCode('in_c1')).catalogs).toEqual([{ _id: c1._id, user_groups: [] }]);
  });

  it('answers a parent out of sight, named anew, as no product; a product keeps the parent it already names', async () => {
    const { c1 } = await world();
    const products = ctx.services.products;
    const byCode = async (code: string) => (await products.batchGet([], [code]))[0];
    const [hidden, seen] = [await byCode('in_c2'), await byCode('in_c1')];
    const variation = (code: string, parent: string) => ({
      code,
      name: { en: code },
      type: 'variation',
      product_id: parent,
      catalogs: [{ _id: c1._id, user_groups: [] }],
    });
    const refusal = (code: string, parent: string) =>
      as({ groups: [g.g1] }, () => products.create(variation(code, parent))).catch((e: ValidationError) => ({
        status: e.status,
        message: e.message.replace(parent, '<parent>'),
        details: e.details?.map((d) => ({ ...d, message: d.message.replace(parent, '<parent>') })),
      }));
    const unknown = await refusal('v_new', '6740a1b2c3d4e5f60123abcd');
    expect(unknown).toMatchObject({ status: 400, details: [{ field: 'product_id' }] });
    expect(await refusal('v_new', hidden._id)).toEqual(unknown);
    const mine = await as({ groups: [g.g1] }, () => products.create(variation('v_seen', seen._id)));
    // An administrator put this variation under the hidden product: its user may still change it.
    const theirs = await products.create(variation('v_of_hidden', hidden._id));
    const patched = await as({ groups: [g.g1] }, () => products.patch(theirs._id, { tags: ['kept'] }));
    expect(patched).toMatchObject({ product_id: hidden._id, tags: ['kept'] });
    await expect(
      as({ groups: [g.g1] }, () => products.patch(mine._id, { product_id: hidden._id })),
    ).rejects.toMatchObject({ status: 400, details: [{ field: 'product_id' }] });
    const bulk = await as({ groups: [g.g1] }, () =>
      ctx.services.productBulk.upsert([variation('v_bulk_hidden', hidden._id), variation('v_of_hidden', hidden._id)]),
    );
    expect(bulk.map((r) => [r.code, r.status, r.error?.details?.[0]?.field])).toEqual([
      ['v_bulk_hidden', 'failed', 'product_id'],
      ['v_of_hidden', 'updated', undefined],
    ]);
  });

  it("keeps product relations to those of the caller's products", async () => {
    await world();
    const products = ctx.services.products;
    const [inC1, inC2] = await products
      .batchGet([], ['in_c1', 'in_c2'])
      .then((ps) => ps.sort((x, y) => x.code.localeCompare(y.code)));
    const relations = ctx.services.productRelations;
    const relationOf = (product: ProductView, part: ProductView) =>
      relations.create({ type: 'association', product_id: product._id, association: [{ id: part._id }] });
    const mine = await relationOf(inC1, inC2);
    const theirs = await relationOf(inC2, inC1);
    const query = { page: 1, limit: 10, skip: 0, filters: [], sort: [], expand: [] };
    const seen = await as({ groups: [g.g1] }, () => relations.list(query));
    expect([seen.total, seen.data.map((r) => r._id)]).toEqual([1, [mine._id]]);
    await expect(as({ groups: [g.g1] }, () => relations.get(theirs._id))).rejects.toBeInstanceOf(NotFoundError);
    await expect(as({ groups: [g.g1] }, () => relations.remove(theirs._id))).rejects.toBeInstanceOf(NotFoundError);
    await relations.remove(theirs._id);
    await expect(
      as({ groups: [g.g1] }, () =>
        relations.create({ type: 'association', product_id: inC2._id, association: [{ id: inC1._id }] }),
      ),
    ).rejects.toMatchObject({ status: 404, details: [{ field: 'product_id' }] });
    // The product out of sight already has an association: still a 404, not the 409 that would tell so.
    const again = await relationOf(inC2, inC1);
    await expect(
      as({ groups: [g.g1] }, () =>
        relations.create({ type: 'association', product_id: inC2._id, association: [{ id: inC1._id }] }),
      ),
    ).rejects.toMatchObject({ status: 404, details: [{ field: 'product_id' }] });
    await relations.remove(again._id);
    // A product that does not exist answers the restricted caller the very same 404 (a 400 "unknown
    // product" would tell which unseen ids exist); an unrestricted caller still gets the 400.
    const unseen = await as({ groups: [g.g1] }, () =>
      relations.create({ type: 'association', product_id: inC2._id, association: [{ id: inC1._id }] }).catch((e) => e),
    );
    const missingId = '6740a1b2c3d4e5f601234999';
    const missing = await as({ groups: [g.g1] }, () =>
      relations.create({ type: 'association', product_id: missingId, association: [{ id: inC1._id }] }).catch((e) => e),
    );
    const strip = (e: { toObject(): Record<string, unknown> }, id: string) =>
      JSON.stringify(e.toObject()).split(id).join('<id>');
    expect(strip(missing, missingId)).toBe(strip(unseen, inC2._id));
    await expect(
      relations.create({ type: 'association', product_id: missingId, association: [{ id: inC1._id }] }),
    ).rejects.toMatchObject({ status: 400 });
    expect((await as({ groups: [g.g2] }, () => relations.list(query))).total).toBe(0);
    expect((await as({ groups: [g.g1] }, () => relations.list(query))).total).toBe(1);
  });

  it('tells another app which of some product ids the caller sees (FilterVisibleProducts)', async () => {
    await world();
    const all = (await ctx.services.products.list({ page: 1, limit: 10, skip: 0, filters: [], sort: [], expand: [] }))
      .data;
    const id = (code: string) => all.find((p) => p.code === code)!._id;
    const deleted = await ctx.newProduct({ code: 'gone' });
    await ctx.services.products.remove(deleted._id);
    const asked = [...all.map((p) => p._id), deleted._id, '6740a1b2c3d4e5f60123abcd', 'not-an-id'];
    const visible = ctx.services.visibleProducts;
    const sorted = (codes: string[]) => codes.map(id).sort();
    expect(await visible(asked)).toEqual(sorted(['in_both', 'in_c1', 'in_c2', 'linked_g3', 'none']));
    expect(await as({ all_products: true }, () => visible(asked))).toEqual(await visible(asked));
    expect(await as({ groups: [g.g1] }, () => visible(asked))).toEqual(sorted(['in_both', 'in_c1']));
    expect(await as({ groups: [g.g3] }, () => visible(asked))).toEqual(sorted(['linked_g3']));
    expect(await as({ groups: [] }, () => visible(asked))).toEqual([]);
    await expect(visible(Array.from({ length: 10_001 }, () => id('none')))).rejects.toMatchObject({ status: 400 });
  });

  it('refuses, per item of a bulk upsert, products out of sight and writes that would leave sight', async () => {
    const { c1, c2 } = await world();
    const item = (code: string, catalog: string) => ({
      code,
      type: 'simple',
      name: { en: code },
      catalogs: [{ _id: catalog, user_groups: [] }],
    });
    const results = await as({ groups: [g.g1] }, () =>
      ctx.services.productBulk.upsert([
        item('in_c1', c1._id), // visible: updated
        item('in_c2', c2._id), // a product they cannot see: refused, untouched
        item('fresh_c2', c2._id), // would be created out of sight
        item('fresh_c1', c1._id),
        { ...item('in_both', c1._id), tags: ['moved'] }, // visible; stays in sight
      ]),
    );
    expect(results.map((r) => [r.code, r.status, r.error?.code])).toEqual([
      ['in_c1', 'updated', undefined],
      ['in_c2', 'failed', 409],
      ['fresh_c2', 'failed', 403],
      ['fresh_c1', 'created', undefined],
      ['in_both', 'updated', undefined],
    ]);
    const stored = await ctx.services.products.batchGet([], ['in_c2', 'fresh_c2']);
    expect(stored.map((p) => [p.code, p.name])).toEqual([['in_c2', { en: 'Blue mug' }]]);
  });

  it('hides the attributes of groups that list the user as not allowed, and refuses writing them', async () => {
    const ug = await ctx.newUsersGroup();
    const secret = await ctx.newAttributeGroup({ users_groups: [{ _id: ug, not_allowed_users: ['u'] }] });
    const open = await ctx.newAttributeGroup();
    await ctx.newAttribute({ key: 'cost', groups: [{ _id: secret._id }] });
    await ctx.newAttribute({ key: 'color', groups: [{ _id: open._id }] });
    const p = await ctx.newProduct({
      code: 'p',
      attribute_groups: [secret._id, open._id],
      attributes: { cost: 'high', color: 'red' },
    });
    const products = ctx.services.products;
    const full = { all_products: true };
    const seen = await as(full, () => products.get(p._id));
    expect(seen.attributes).toEqual({ color: 'red' });
    expect(Object.keys(seen.attributes_schema_snapshot).sort()).toEqual(['color']);
    expect(JSON.parse((await as(full, () => products.getJson(p._id))).json).attributes).toEqual({ color: 'red' });
    expect(
      (await as(full, () => products.listJson({ page: 1, limit: 5, skip: 0, filters: [], sort: [], expand: [] }))).json,
    ).not.toContain('cost');
    // Another user sees everything.
    expect((await as({ all_products: true, user_id: 'v' }, () => products.get(p._id))).attributes).toEqual({
      cost: 'high',
      color: 'red',
    });

    const refused = as(full, () => products.patch(p._id, { attributes: { cost: null } }));
    await expect(refused).rejects.toBeInstanceOf(AuthorizationError);
    await expect(refused).rejects.toMatchObject({ details: [{ field: 'attributes.cost' }] });
    // A replace without the hidden value keeps it; what the user may write is written.
    const {
      _id,
      version,
      created_at,
      updated_at,
      attributes_schema_snapshot,
      attributes_options_snapshot,
      completeness,
      ...input
    } = seen;
    void [_id, version, created_at, updated_at, attributes_schema_snapshot, attributes_options_snapshot, completeness];
    const replaced = await as(full, () => products.replace(p._id, { ...input, attributes: { color: 'blue' } }));
    expect(replaced.attributes).toEqual({ color: 'blue' });
    expect((await products.get(p._id)).attributes).toEqual({ cost: 'high', color: 'blue' });
    const events = await ctx.events();
    expect(events.at(-1)?.data).toMatchObject({ attributes: { cost: 'high', color: 'blue' } });
  });
});
