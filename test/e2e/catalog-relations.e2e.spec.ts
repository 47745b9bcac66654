import { eventually, startE2E, type E2E } from './platform';

type Json = Record<string, unknown>;

// Product relations and the in-place expand of products' id lists through the whole platform,
// driven only over HTTP; every stored relation reaches the event stream.
describe('catalog product relations and expand through the whole platform', () => {
  let e2e: E2E;

  beforeAll(async () => {
    e2e = await startE2E('e2erels');
  });

  afterAll(async () => {
    await e2e?.close();
  });

  it("expands a product's categories in place, relates products, refuses what does not fit and emits product_relations events", async () => {
    const tree = (await e2e.api('POST', '/api/v1/category-trees', { code: 'main', name: { en: 'Main' } })).json as Json;
    const category = (
      await e2e.api('POST', '/api/v1/categories', {
        code: 'drinks',
        name: { en: 'Drinks' },
        category_tree_id: tree._id,
      })
    ).json as Json;
    const product = async (code: string, type: string, extra: Json = {}) => {
      const r = await e2e.api('POST', '/api/v1/products', { code, name: { en: code }, type, ...extra });
      expect(r.status).toBe(201);
      return r.json as Json;
    };
    const kit = await product('breakfast', 'kit', { categories: [category._id] });
    const cup = await product('cup', 'simple');
    const delivery = await product('delivery', 'service');

    const expanded = (await e2e.api('GET', '/api/v1/products?code=breakfast&expand=categories')).json as Json;
    expect((expanded.data as Json[])[0].categories).toEqual([
      expect.objectContaining({ _id: category._id, code: 'drinks', category_tree_id: tree._id }),
    ]);

    const parts = await e2e.client.POST('/api/v1/product-relations', {
      body: {
        type: 'kit_products',
        product_id: kit._id as string,
        kit_products: [{ id: cup._id as string, quantity: 2 }],
      },
    });
    expect(parts.response.status).toBe(201);
    const services = await e2e.api('POST', '/api/v1/product-relations', {
      type: 'kit_services',
      product_id: kit._id,
      kit_services: [{ id: delivery._id, quantity: 1 }],
    });
    expect(services.status).toBe(201);
    const wrong = await e2e.api('POST', '/api/v1/product-relations', {
      type: 'ineligible_service_categories',
      product_id: delivery._id,
      ineligible_service_categories: [{ id: category._id, category_tree_id: cup._id }],
    });
    expect(wrong.status).toBe(400);
    expect(((wrong.json as Json).details as Json[]).map((d) => d.field)).toEqual([
      'ineligible_service_categories.0.category_tree_id',
    ]);
    expect(
      (
        await e2e.api('POST', '/api/v1/product-relations', {
          type: 'kit_products',
          product_id: kit._id,
          kit_products: [{ id: cup._id, quantity: 1 }],
        })
      ).status,
    ).toBe(409);
    expect((await e2e.api('DELETE', `/api/v1/products/${cup._id}`)).status).toBe(409);

    const listed = (await e2e.api('GET', `/api/v1/product-relations?product_id=${kit._id}&sort=type&expand=product`))
      .json as Json;
    expect((listed.data as Json[]).map((r) => [r.type, (r.product as Json).code])).toEqual([
      ['kit_products', 'breakfast'],
      ['kit_services', 'breakfast'],
    ]);

    const types = async () =>
      (await e2e.stream.messages(`${e2e.stream.subjectPrefix}pim.catalog.product_relations.>`)).map(
        (m) => (m.data as Json).type,
      );
    await eventually(async () => (await types()).length >= 2);
    expect(await types()).toEqual(['product_relations.created', 'product_relations.created']);
  });
});
