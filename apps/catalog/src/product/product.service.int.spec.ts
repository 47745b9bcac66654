import 'reflect-metadata';
import { ConflictError, PreconditionFailedError, ValidationError } from '@pim/errors';
import { applyListQuery, parseListQuery } from '@pim/query';
import { productListDecl, type AttributeInput, type AttributeView, type ProductInput } from '@pim/resources';
import { SEARCH_FIELD, storageDecl } from '@pim/records';
import { SEARCH_FOLDED } from '@pim/records';
import { CATALOG_STORE } from '../catalog.records';
import { BAD_VALUES, EVERY_TYPE, EVERY_TYPE_OPTIONS, GOOD_VALUES, STORED_GOOD_VALUES } from '@pim/testing';
import { useCatalogContext, type CatalogTestContext } from '../testing/catalog.context';
import { ProductEntity } from '../entities/product.entity';

const MISSING = '6740a1b2c3d4e5f601234567';
const MISSING2 = '6740a1b2c3d4e5f601234568';

// Products against the real Postgres: references, attribute values by type, association,
// unique, required, snapshots, completeness, search, events and the set-based bulk upsert.
describe('products (real Postgres)', () => {
  let ctx: CatalogTestContext;
  useCatalogContext((c) => (ctx = c));

  const products = () => ctx.services.products;
  const list = async (params: Record<string, string>) =>
    (await products().list(parseListQuery(productListDecl, { sort: 'code', ...params }))).data.map((p) => p.code);
  const problemsOf = async (work: Promise<unknown>) => {
    const err = await work.catch((e) => e);
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).details ?? [];
  };

  /** A group with one attribute of every type (select/multiselect with options red, blue). */
  async function everyType(): Promise<{ group: string; attrs: Record<string, AttributeView> }> {
    const group = (await ctx.newAttributeGroup())._id;
    const link = { groups: [{ _id: group }] };
    const attrs: Record<string, AttributeView> = {};
    for (const [key, spec] of Object.entries(EVERY_TYPE))
      attrs[key] = await ctx.newAttribute({
        key,
        association: 'product_and_sku',
        ...link,
        ...(spec as Partial<AttributeInput>),
      });
    for (const key of ['a_select', 'a_multiselect']) {
      for (const value of EVERY_TYPE_OPTIONS) await ctx.newOption(attrs[key]._id, { value, label: { en: value } });
    }
    return { group, attrs };
  }

  it('refuses a bad value of each of the 14 types with every key listed, and round-trips a valid product exactly', async () => {
    const { group } = await everyType();
    const bad = BAD_VALUES;
    const details = await problemsOf(ctx.newProduct({ code: 'bad', attribute_groups: [group], attributes: bad }));
    const keys = new Set(details.map((d) => d.field.split('.').slice(0, 2).join('.')));
    expect([...keys].sort()).toEqual(
      Object.keys(bad)
        .map((k) => `attributes.${k}`)
        .sort(),
    );

    const good = GOOD_VALUES;
    const input: ProductInput = {
      code: 'good',
      name: { pt: 'Café', en: 'Coffee' },
      description: { pt: 'Torrado' },
      type: 'simple',
      attribute_groups: [group],
      attributes: good,
      last_published_at: '2026-01-02T03:04:05.006Z',
      publishments: [{ channel: 'shop', published_at: '2026-01-02T03:04:05.006Z', status: 'PUBLISHED' }],
      fulfilled: 2.5,
    };
    const created = await products().create(input);
    expect(created).toMatchObject({
      ...input,
      attributes: STORED_GOOD_VALUES,
      enabled: true,
      published: false,
      categories: [],
      version: 1,
      completeness: { en: 100, pt: 100 },
    });
    expect(created.attributes).toEqual(STORED_GOOD_VALUES);
    expect(await products().get(created._id)).toEqual(created);
    expect(Object.keys(created.attributes_schema_snapshot).sort()).toEqual(Object.keys(good).sort());
    expect(created.attributes_options_snapshot).toEqual({
      a_select: [{ value: 'red', label: { en: 'red' } }],
      a_multiselect: [
        { value: 'blue', label: { en: 'blue' } },
        { value: 'red', label: { en: 'red' } },
      ],
    });
    const events = await ctx.events();
    expect(events.at(-1)).toMatchObject({ type: 'products.created', data: created });
  });

  it('names every missing reference and its field in one 400', async () => {
    const brand = await ctx.newBrand();
    const category = await ctx.newCategory();
    const details = await problemsOf(
      ctx.newProduct({
        family_id: MISSING,
        brand_id: brand._id,
        categories: [category._id, MISSING],
        category_trees: [MISSING],
        catalogs: [{ _id: MISSING2, user_groups: [] }],
        attribute_groups: [MISSING],
        product_id: MISSING2,
      }),
    );
    expect(details.map((d) => d.field).sort()).toEqual([
      'attribute_groups.0',
      'catalogs.0._id',
      'categories.1',
      'category_trees.0',
      'family_id',
      'product_id',
    ]);
    expect(details.find((d) => d.field === 'categories.1')?.message).toBe(`no live category has _id '${MISSING}'`);
  });

  it('keeps variations under a live non-variation parent and attributes to their association', async () => {
    const group = (await ctx.newAttributeGroup())._id;
    await ctx.newAttribute({ key: 'for_products', association: 'product', groups: [{ _id: group }] });
    await ctx.newAttribute({ key: 'for_skus', association: 'sku', groups: [{ _id: group }] });
    await ctx.newAttribute({ key: 'for_both', association: 'product_and_sku', groups: [{ _id: group }] });

    expect((await problemsOf(ctx.newProduct({ type: 'variation' }))).map((d) => d.field)).toEqual(['product_id']);
    const parent = await ctx.newProduct({
      code: 'parent',
      attribute_groups: [group],
      attributes: { for_products: 'p', for_both: 'b' },
    });
    const sku = await ctx.newProduct({
      code: 'sku',
      type: 'variation',
      product_id: parent._id,
      attribute_groups: [group],
      attributes: { for_skus: 's', for_both: 'b' },
    });
    expect(sku.product_id).toBe(parent._id);
    expect(
      (await problemsOf(ctx.newProduct({ type: 'variation', product_id: sku._id }))).map((d) => d.message),
    ).toEqual(["names a variation; a variation's parent must not be a variation"]);
    const wrong = await problemsOf(ctx.newProduct({ attribute_groups: [group], attributes: { for_skus: 'x' } }));
    expect(wrong).toEqual([
      {
        field: 'attributes.for_skus',
        message: 'applies to variations only (association sku), and this product is a simple',
      },
    ]);
    const wrongSku = await problemsOf(
      ctx.newProduct({
        type: 'variation',
        product_id: parent._id,
        attribute_groups: [group],
        attributes: { for_products: 'x' },
      }),
    );
    expect(wrongSku.map((d) => d.field)).toEqual(['attributes.for_products']);

    const refused = await products()
      .remove(parent._id)
      .catch((e) => e);
    expect(refused).toBeInstanceOf(ConflictError);
    expect(refused.message).toBe("The product 'parent' is still used by 1 live product");
  });

  it('refuses unknown and inapplicable keys, taken unique values and missing required ones, all at once', async () => {
    const group = (await ctx.newAttributeGroup())._id;
    const category = (await ctx.newCategory())._id;
    const other = (await ctx.newAttributeGroup())._id;
    await ctx.newAttribute({ key: 'ean', unique: true, groups: [{ _id: group }] });
    await ctx.newAttribute({ key: 'elsewhere', groups: [{ _id: other }] });
    await ctx.newAttribute({ key: 'by_link', categories: [{ _id: category, required: true }] });
    const familyAttr = await ctx.newAttribute({ key: 'by_family' });
    const family = (await ctx.newFamily({ attributes: [{ _id: familyAttr._id, required: true }] }))._id;

    const first = await ctx.newProduct({ code: 'first', attribute_groups: [group], attributes: { ean: '789' } });
    const details = await problemsOf(
      ctx.newProduct({
        code: 'second',
        attribute_groups: [group],
        categories: [category],
        family_id: family,
        attributes: { ean: '789', ghost: 1, elsewhere: 'x' },
      }),
    );
    expect(details).toEqual(
      expect.arrayContaining([
        { field: 'attributes.ean', message: 'must be unique: product \'first\' already holds "789"' },
        { field: 'attributes.ghost', message: 'is not an attribute: no live attribute has this key' },
        {
          field: 'attributes.elsewhere',
          message:
            "does not apply to this product: it is not linked to the product's attribute groups, categories or family",
        },
        { field: 'attributes.by_link', message: 'is required for this product and has no value' },
        { field: 'attributes.by_family', message: 'is required for this product and has no value' },
      ]),
    );
    expect(details).toHaveLength(5);
    // A product keeps its own unique value on a rewrite; If-Match guards it.
    await expect(products().patch(first._id, { name: { es: 'Primero' } }, 1)).resolves.toMatchObject({
      version: 2,
      attributes: { ean: '789' },
    });
    await expect(products().patch(first._id, { tags: ['x'] }, 1)).rejects.toBeInstanceOf(PreconditionFailedError);
  });

  it('stores a datetime in UTC, so one instant under two offsets is one unique value', async () => {
    const group = (await ctx.newAttributeGroup())._id;
    await ctx.newAttribute({ key: 'launch', type: 'datetime', unique: true, groups: [{ _id: group }] });
    const first = await ctx.newProduct({
      code: 'launch-1',
      attribute_groups: [group],
      attributes: { launch: '2024-01-31T12:00:00-03:00' },
    });
    expect(first.attributes).toEqual({ launch: '2024-01-31T15:00:00.000Z' });
    // A taken unique value as the request's only problem is a conflict (409), as a taken code is.
    const taken = await ctx
      .newProduct({ code: 'launch-2', attribute_groups: [group], attributes: { launch: '2024-01-31T15:00:00Z' } })
      .catch((e: unknown) => e);
    expect(taken).toBeInstanceOf(ConflictError);
    expect(taken).toMatchObject({
      title: 'Unique value taken',
      details: [
        {
          field: 'attributes.launch',
          message: 'must be unique: product \'launch-1\' already holds "2024-01-31T15:00:00.000Z"',
        },
      ],
    });
  });

  it('computes completeness per language of name and description and filters on its lowest value', async () => {
    const group = (await ctx.newAttributeGroup())._id;
    await ctx.newAttribute({ key: 'plain', required: true, groups: [{ _id: group }] });
    await ctx.newAttribute({
      key: 'story',
      type: 'textarea',
      type_config: { localizable: true },
      groups: [{ _id: group, required: true }],
    });
    const half = await ctx.newProduct({
      code: 'half',
      name: { pt: 'Meio', en: 'Half' },
      attribute_groups: [group],
      attributes: { plain: 'x', story: { pt: 'história' } },
    });
    expect(half.completeness).toEqual({ en: 50, pt: 100 });
    const full = await ctx.newProduct({
      code: 'full',
      name: { pt: 'Cheio' },
      attribute_groups: [group],
      attributes: { plain: 'x', story: { pt: 'história' } },
    });
    expect(full.completeness).toEqual({ pt: 100 });
    expect(await list({ completeness_min_lt: '100' })).toEqual(['half']);
    expect(await list({ completeness_min: '100' })).toEqual(['full']);
  });

  it('searches code and every language of name, ignoring case and accents', async () => {
    await ctx.newProduct({ code: 'p1', name: { pt: 'Café' } });
    await ctx.newProduct({ code: 'p2', name: { en: 'Tea' } });
    expect(await list({ _search: 'cafe' })).toEqual(['p1']);
    expect(await list({ _search: 'P2' })).toEqual(['p2']);
  });

  it('searches through the folded column, alone or with brand and family, the pattern a constant the planner sees', async () => {
    const brand = (await ctx.newBrand())._id;
    const family = (await ctx.newFamily())._id;
    await ctx.newProduct({ code: 'c1', name: { pt: 'Pão de Açúcar' }, brand_id: brand, family_id: family });
    await ctx.newProduct({ code: 'c2', name: { en: 'Sugar loaf' }, brand_id: brand });
    await ctx.newProduct({ code: 'c3', name: { en: 'ACUCAR' } });
    expect(await list({ _search: 'açucar' })).toEqual(['c1', 'c3']);
    expect(await list({ _search: 'ACÚCAR', brand_id: brand })).toEqual(['c1']);
    expect(await list({ _search: 'de a', family_id: family })).toEqual(['c1']);
    expect(await list({ _search: '%' })).toEqual([]);
    // Updates refold: the column is generated from search_text.
    const c3 = await products().patch(
      (await products().list(parseListQuery(productListDecl, { code: 'c3' }))).data[0]._id,
      { name: { en: 'Salt' } },
    );
    expect(c3.code).toBe('c3');
    expect(await list({ _search: 'acucar' })).toEqual(['c1']);

    // The planner sees the term: the pattern is folded to a constant, so the column's statistics estimate it.
    const q = parseListQuery(productListDecl, { _search: 'Açucar' });
    const [sql, params] = applyListQuery(
      ctx.ds.manager.createQueryBuilder(ProductEntity, 't').where('t.deleted = false'),
      storageDecl(productListDecl),
      q,
      't',
      {
        unaccent: CATALOG_STORE.unaccent,
        folded: { [SEARCH_FIELD]: SEARCH_FOLDED },
      },
    ).getQueryAndParameters();
    const plan = (await ctx.ds.query(`EXPLAIN ${sql}`, params))
      .map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN'])
      .join('\n');
    expect(plan).toContain(`search_folded ~~ '%acucar%'::text`);
  });

  it('gives the exact total: from a short last page, else by counting', async () => {
    for (const code of ['t1', 't2', 't3', 't4', 't5']) await ctx.newProduct({ code });
    const total = async (params: Record<string, string>) =>
      (await products().list(parseListQuery(productListDecl, params))).total;
    expect(await total({ limit: '2' })).toBe(5);
    expect(await total({ limit: '2', page: '3' })).toBe(5);
    expect(await total({ limit: '5' })).toBe(5);
    expect(await total({ limit: '10' })).toBe(5);
    expect(await total({ limit: '2', page: '9' })).toBe(5);
    expect(await total({ code: 'nope' })).toBe(0);
    expect(await total({ _search: 't', limit: '4' })).toBe(5);
  });

  it('counts products holding an attribute or an option value, refusing their deletes', async () => {
    const group = (await ctx.newAttributeGroup())._id;
    const color = await ctx.newAttribute({ key: 'color', type: 'multiselect', groups: [{ _id: group }] });
    const red = await ctx.newOption(color._id, { value: 'red' });
    await ctx.newOption(color._id, { value: 'blue' });
    await ctx.newProduct({ attribute_groups: [group], attributes: { color: ['red'] } });
    await ctx.newProduct({ attribute_groups: [group], attributes: { color: ['blue', 'red'] } });
    const refused = await ctx.services.attributeOptions.remove(color._id, red._id).catch((e) => e);
    expect(refused).toBeInstanceOf(ConflictError);
    expect(refused.message).toBe("Cannot delete option 'red' of attribute 'color': 2 live products use it");
    const attribute = await ctx.services.attributes.remove(color._id).catch((e) => e);
    expect(attribute).toBeInstanceOf(ConflictError);
    expect(attribute.message).toContain('2 live products');
  });

  it('refuses to delete the brand, family, categories, trees, catalogs and attribute groups live products name', async () => {
    const brand = await ctx.newBrand();
    const family = await ctx.newFamily();
    const tree = await ctx.newCategoryTree();
    const category = await ctx.newCategory({ category_tree_id: tree._id });
    const catalog = await ctx.newCatalog();
    const group = await ctx.newAttributeGroup();
    const product = await ctx.newProduct({
      brand_id: brand._id,
      family_id: family._id,
      categories: [category._id],
      category_trees: [tree._id],
      catalogs: [{ _id: catalog._id, user_groups: [] }],
      attribute_groups: [group._id],
    });
    const s = ctx.services;
    const refusals = await Promise.all([
      s.brands.remove(brand._id).catch((e) => e),
      s.families.remove(family._id).catch((e) => e),
      s.categories.remove(category._id).catch((e) => e),
      s.catalogs.remove(catalog._id).catch((e) => e),
      s.attributeGroups.remove(group._id).catch((e) => e),
    ]);
    for (const err of refusals) {
      expect(err).toBeInstanceOf(ConflictError);
      expect(err.message).toContain('1 live product');
    }
    await products().remove(product._id);
    await expect(s.brands.remove(brand._id)).resolves.toMatchObject({ _id: brand._id });
    await expect(s.categories.remove(category._id)).resolves.toMatchObject({ _id: category._id });
    await expect(s.categoryTrees.remove(tree._id)).resolves.toMatchObject({ _id: tree._id });
    expect((await ctx.events()).filter((e) => e.type === 'products.deleted')).toHaveLength(1);
  });

  it("filters on attributes.<key> by the attribute's type", async () => {
    const group = (await ctx.newAttributeGroup())._id;
    const color = await ctx.newAttribute({ key: 'color', type: 'multiselect', groups: [{ _id: group }] });
    for (const value of EVERY_TYPE_OPTIONS) await ctx.newOption(color._id, { value });
    await ctx.newAttribute({ key: 'weight', type: 'number', groups: [{ _id: group }] });
    await ctx.newAttribute({
      key: 'title',
      type: 'text',
      type_config: { localizable: true },
      groups: [{ _id: group }],
    });
    const add = (code: string, attributes: Record<string, unknown>) =>
      ctx.newProduct({ code, attribute_groups: [group], attributes });
    await add('a', { color: ['red'], weight: 1, title: { pt: 'Azul' } });
    await add('b', { color: ['blue', 'red'], weight: 5 });
    await add('c', { weight: 10 });
    const by = async (...filters: { field: string; op: string; values: string[] }[]) => {
      const q = parseListQuery(productListDecl, { sort: 'code' });
      return (await products().list({ ...q, filters: filters as typeof q.filters })).data.map((p) => p.code);
    };
    expect(await by({ field: 'attributes.color', op: 'eq', values: ['red'] })).toEqual(['a', 'b']);
    expect(await by({ field: 'attributes.color', op: 'in', values: ['blue', 'green'] })).toEqual(['b']);
    expect(await by({ field: 'attributes.weight', op: 'gte', values: ['5'] })).toEqual(['b', 'c']);
    expect(await by({ field: 'attributes.weight', op: 'eq', values: ['10'] })).toEqual(['c']);
    expect(await by({ field: 'attributes.color', op: 'exists', values: ['false'] })).toEqual(['c']);
    expect(await by({ field: 'attributes.title', op: 'eq', values: ['Azul'] })).toEqual(['a']);
    const details = await problemsOf(
      by(
        { field: 'attributes.weight', op: 'eq', values: ['heavy'] },
        { field: 'attributes.ghost', op: 'eq', values: ['x'] },
      ),
    );
    expect(details).toEqual([
      { field: 'attributes.weight', message: 'must be a number for a number attribute' },
      { field: 'attributes.ghost', message: 'names no live attribute key' },
    ]);
  });

  it('keeps the rendered view equal to the view through every write, and renders rows that have none', async () => {
    const json = async (id: string) => JSON.parse((await products().getJson(id)).json) as unknown;
    const a = await ctx.newProduct({ code: 'r-a', name: { en: 'Rendered', pt: 'Café' } });
    expect(await json(a._id)).toEqual(await products().get(a._id));
    const patched = await products().patch(a._id, { name: { pt: null }, tags: ['x'] });
    expect(await json(a._id)).toEqual(patched);
    expect((await products().getJson(a._id)).version).toBe(2);
    const replaced = await products().replace(a._id, { code: 'r-a', name: { en: 'Again' }, type: 'simple' });
    expect(await json(a._id)).toEqual(replaced);

    const [bulked] = await ctx.services.productBulk.upsert([{ code: 'r-b', name: { en: 'Bulk' }, type: 'simple' }]);
    expect(await json(bulked._id!)).toEqual(await products().get(bulked._id!));
    await ctx.services.productBulk.upsert([{ code: 'r-b', name: { en: 'Bulk again' }, type: 'simple', tags: ['y'] }]);
    expect(await json(bulked._id!)).toEqual(await products().get(bulked._id!));

    // A row without a rendering (written before the column existed, or by hand) is rendered from its columns.
    await ctx.ds.query(`UPDATE catalog.products SET rendered = NULL WHERE _id = $1`, [a._id]);
    expect(await json(a._id)).toEqual(replaced);

    // Lists serialized: the same views in the same order and the same total, rendered or not.
    const query = parseListQuery(productListDecl, { sort: 'code' });
    const listed = await products().list(query);
    const asJson = await products().listJson(query);
    expect(JSON.parse(asJson.json)).toEqual(listed.data);
    expect(asJson.total).toBe(listed.total);
    expect(listed.data.map((p) => p.code)).toEqual(['r-a', 'r-b']);

    await products().remove(a._id);
    const [{ rendered }] = await ctx.ds.query(`SELECT rendered FROM catalog.products WHERE _id = $1`, [a._id]);
    expect(rendered).toBeNull();
    await expect(products().getJson(a._id)).rejects.toMatchObject({ name: 'NotFoundError' });
  });

  describe('bulk upsert', () => {
    it('stores 990 of 1,000 items with 10 item errors, one event each, and updates by code on the next run', async () => {
      const group = (await ctx.newAttributeGroup())._id;
      await ctx.newAttribute({ key: 'weight', type: 'number', groups: [{ _id: group }] });
      const items: unknown[] = Array.from({ length: 1_000 }, (_, i) => ({
        code: `bulk-${i}`,
        name: { en: `Product ${i}` },
        type: 'simple',
        attribute_groups: [group],
        attributes: { weight: i },
      }));
      const badAt = [3, 100, 200, 300, 400, 500, 600, 700, 800, 999];
      badAt.forEach((i, n) => {
        items[i] =
          n % 2 === 0
            ? { ...(items[i] as object), attributes: { weight: 'heavy' } }
            : { code: `bulk-${i}`, type: 'simple' };
      });
      const results = await ctx.services.productBulk.upsert(items);
      expect(results).toHaveLength(1_000);
      expect(results.filter((r) => r.status === 'created')).toHaveLength(990);
      const failed = results.filter((r) => r.status === 'failed');
      expect(failed.map((r) => r.index)).toEqual(badAt);
      expect(failed[0].error).toMatchObject({
        code: 400,
        details: [{ field: 'attributes.weight', message: 'must be a number' }],
      });
      expect(failed[1].error).toMatchObject({ code: 400, details: [{ field: 'name' }] });
      const [{ n }] = await ctx.ds.query('SELECT count(*)::int AS n FROM catalog.products');
      expect(n).toBe(990);
      const events = await ctx.events();
      expect(events.filter((e) => e.type === 'products.created')).toHaveLength(990);
      const stored = await products().get(results[0]._id!);
      expect(events.find((e) => (e.data as { _id: string })._id === stored._id)?.data).toEqual(stored);

      const again = await ctx.services.productBulk.upsert([
        {
          code: 'bulk-0',
          name: { en: 'Renamed' },
          type: 'simple',
          attribute_groups: [group],
          attributes: { weight: 1 },
        },
        { code: 'bulk-new', name: { en: 'New' }, type: 'simple' },
        { code: 'bulk-new', name: { en: 'Twice' }, type: 'simple' },
      ]);
      expect(again.map((r) => r.status)).toEqual(['updated', 'created', 'failed']);
      expect(again[0]._id).toBe(stored._id);
      expect(await products().get(stored._id)).toMatchObject({
        version: 2,
        name: { en: 'Renamed' },
        created_at: stored.created_at,
      });
      expect((await ctx.events()).filter((e) => e.type === 'products.updated')).toHaveLength(1);
    });

    it('checks unique values across the batch and the stored products', async () => {
      const group = (await ctx.newAttributeGroup())._id;
      await ctx.newAttribute({ key: 'ean', unique: true, groups: [{ _id: group }] });
      await ctx.newProduct({ code: 'held', attribute_groups: [group], attributes: { ean: '1' } });
      const item = (code: string, ean: string) => ({
        code,
        name: { en: code },
        type: 'simple',
        attribute_groups: [group],
        attributes: { ean },
      });
      const results = await ctx.services.productBulk.upsert([
        item('a', '1'),
        item('b', '2'),
        item('c', '2'),
        item('held', '1'),
      ]);
      expect(results.map((r) => r.status)).toEqual(['failed', 'created', 'failed', 'updated']);
      expect(results[2].error).toMatchObject({
        code: 409,
        kind: 'conflict',
        details: [{ field: 'attributes.ean', message: 'must be unique: product \'b\' earlier in the batch holds "2"' }],
      });
    });

    it('merges onto stored products when asked: omitted fields keep their values, attributes merge by key, texts by language', async () => {
      const group = (await ctx.newAttributeGroup())._id;
      await ctx.newAttribute({ key: 'weight', type: 'number', groups: [{ _id: group }] });
      await ctx.newAttribute({ key: 'color', groups: [{ _id: group }] });
      await ctx.newAttribute({
        key: 'story',
        type: 'textarea',
        type_config: { localizable: true },
        groups: [{ _id: group }],
      });
      const { _id } = await ctx.newProduct({
        code: 'merge-a',
        name: { en: 'Kept', pt: 'Mantido' },
        tags: ['x'],
        attribute_groups: [group],
        attributes: { weight: 1, color: 'red', story: { en: 'Story', pt: 'História' } },
      });
      const [updated, created] = await ctx.services.productBulk.upsert(
        [
          { code: 'merge-a', name: { en: 'Renamed' }, attributes: { weight: 2, story: { pt: 'Nova história' } } },
          { code: 'merge-new', name: { en: 'New' }, type: 'simple' },
        ],
        { merge: true },
      );
      expect([updated.status, created.status]).toEqual(['updated', 'created']);
      const after = await products().get(_id);
      // A sheet with a column per language it holds leaves the other languages as they were.
      expect(after).toMatchObject({
        name: { en: 'Renamed', pt: 'Mantido' },
        tags: ['x'],
        type: 'simple',
        attributes: { weight: 2, color: 'red', story: { en: 'Story', pt: 'Nova história' } },
      });
      // The same merge again holds what is stored: nothing written, no event, the same version.
      const events = (await ctx.events()).length;
      const [again] = await ctx.services.productBulk.upsert(
        [{ code: 'merge-a', name: { en: 'Renamed' }, attributes: { weight: 2, story: { pt: 'Nova história' } } }],
        { merge: true },
      );
      expect(again).toMatchObject({ status: 'unchanged', _id });
      expect(await products().get(_id)).toEqual(after);
      expect(await ctx.events()).toHaveLength(events);
    });

    it('applies a batch sent under an id once: resent (also at the same time), it writes nothing and answers the same outcomes', async () => {
      const items = [
        { code: 'once-a', name: { en: 'A' }, type: 'simple' },
        { code: 'once-b', type: 'simple' },
        { code: 'once-c', name: { en: 'C' }, type: 'simple' },
      ];
      const [first, second, third] = await Promise.all([
        ctx.services.productBulk.upsert(items, { batchId: 'imp-1:2' }),
        ctx.services.productBulk.upsert(items, { batchId: 'imp-1:2' }),
        ctx.services.productBulk.upsert(items, { batchId: 'imp-1:2' }),
      ]);
      const statuses = (rs: { status: string }[]) => rs.map((r) => r.status);
      expect(statuses(first)).toEqual(['created', 'failed', 'created']);
      expect(statuses(second)).toEqual(statuses(first));
      expect(statuses(third)).toEqual(statuses(first));
      expect(second[1]).toMatchObject({ index: 1, code: 'once-b', error: { code: 400, details: [{ field: 'name' }] } });
      const events = await ctx.events();
      expect(events.filter((e) => e.type.startsWith('products.'))).toHaveLength(2);
      const [{ n }] = await ctx.ds.query(`SELECT count(*)::int AS n FROM catalog.products WHERE code LIKE 'once-%'`);
      expect(n).toBe(2);
      // Another id is another batch: checked again; items that hold what is stored write nothing.
      expect(statuses(await ctx.services.productBulk.upsert(items, { batchId: 'imp-1:5' }))).toEqual([
        'unchanged',
        'failed',
        'unchanged',
      ]);
      expect((await ctx.events()).filter((e) => e.type.startsWith('products.'))).toHaveLength(2);
    });
  });
});
