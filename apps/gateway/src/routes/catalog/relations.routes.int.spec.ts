import { catalogHarness, type CatalogHarness } from '../../testing/catalog.harness';

type Json = Record<string, unknown>;

// HTTP → the gateway's relation routes → gRPC → the catalog app (its own process) → Postgres.
describe('product relation routes over HTTP', () => {
  let h: CatalogHarness;

  beforeAll(async () => {
    h = await catalogHarness();
  });

  afterAll(async () => {
    await h?.close();
  });

  it('creates, lists by product_id and type, expands the product, refuses what does not fit and a second relation of a type', async () => {
    const product = async (code: string, type = 'simple') =>
      (await h.request('POST', '/api/v1/products', { code, name: { en: code }, type })).json;
    const kit = await product('r-kit', 'kit');
    const cup = await product('r-cup');
    const install = await product('r-install', 'service');

    const body = { type: 'kit_products', product_id: kit._id, kit_products: [{ id: cup._id, quantity: 2 }] };
    const created = await h.request('POST', '/api/v1/product-relations', body);
    expect(created.status).toBe(201);
    expect(created.json).toEqual({
      _id: created.json._id,
      ...body,
      version: 1,
      created_at: created.json.created_at,
      updated_at: created.json.updated_at,
      created_by_name: 'tester',
    });
    expect(created.headers.get('location')).toBe(`/api/v1/product-relations/${created.json._id}`);
    expect(await h.request('GET', `/api/v1/product-relations/${created.json._id}`)).toMatchObject({
      status: 200,
      json: created.json,
    });
    const services = await h.request('POST', '/api/v1/product-relations', {
      type: 'kit_services',
      product_id: kit._id,
      kit_services: [{ id: install._id, quantity: 1 }],
    });
    expect(services.status).toBe(201);
    expect(services.json).not.toHaveProperty('kit_products');

    const listed = await h.request(
      'GET',
      `/api/v1/product-relations?product_id=${kit._id}&type=kit_products&expand=product`,
    );
    expect(listed.status).toBe(200);
    expect((listed.json.data as Json[]).map((r) => [r._id, (r.product as Json).code])).toEqual([
      [created.json._id, 'r-kit'],
    ]);
    expect(
      ((await h.request('GET', `/api/v1/product-relations?product_id=${kit._id}`)).json.data as Json[]).length,
    ).toBe(2);

    const notService = await h.request('POST', '/api/v1/product-relations', {
      type: 'eligible_service_products',
      product_id: install._id,
      eligible_service_products: [{ id: cup._id }],
    });
    expect(notService.status).toBe(201);
    const wrongKind = await h.request('PUT', `/api/v1/product-relations/${services.json._id}`, {
      type: 'kit_services',
      product_id: kit._id,
      kit_services: [{ id: cup._id, quantity: 1 }],
    });
    expect(wrongKind.status).toBe(400);
    expect(wrongKind.json.details).toEqual([
      { field: 'kit_services.0.id', message: `product '${cup._id}' is not a service (its type is simple)` },
    ]);
    const twoLists = await h.request('POST', '/api/v1/product-relations', { ...body, association: [{ id: cup._id }] });
    expect(twoLists.status).toBe(400);
    expect((twoLists.json.details as Json[]).map((d) => d.field)).toEqual(['association']);

    const second = await h.request('POST', '/api/v1/product-relations', {
      ...body,
      kit_products: [{ id: install._id, quantity: 1 }],
    });
    expect(second.status).toBe(400);
    const again = await h.request('POST', '/api/v1/product-relations', body);
    expect(again.status).toBe(409);

    const patched = await h.request(
      'PATCH',
      `/api/v1/product-relations/${created.json._id}`,
      { kit_products: [{ id: cup._id, quantity: 5 }] },
      { 'if-match': '"1"' },
    );
    expect(patched).toMatchObject({ status: 200, json: { version: 2, kit_products: [{ id: cup._id, quantity: 5 }] } });
    expect(
      (await h.request('DELETE', `/api/v1/product-relations/${created.json._id}`, undefined, { 'if-match': '"2"' }))
        .status,
    ).toBe(204);
    expect((await h.request('POST', '/api/v1/product-relations', body)).status).toBe(201);

    const reader = { 'x-test-scopes': 'product_relations:read' };
    expect((await h.request('GET', '/api/v1/product-relations', undefined, reader)).status).toBe(200);
    expect((await h.request('GET', '/api/v1/product-relations?expand=product', undefined, reader)).status).toBe(403);
    expect((await h.request('POST', '/api/v1/product-relations', body, reader)).status).toBe(403);
  });
});
