import { eventually, startE2E, type E2E } from './platform';

type Json = Record<string, unknown>;

// Products through the whole platform, driven only over HTTP: typed values round-trip exactly,
// bad values are listed at once, search ignores accents, bulk upsert fails items alone, and every
// stored product reaches the event stream.
describe('catalog products through the whole platform', () => {
  let e2e: E2E;

  beforeAll(async () => {
    e2e = await startE2E('e2eprods');
  });

  afterAll(async () => {
    await e2e?.close();
  });

  it('stores typed products, searches them without accents, bulk upserts and emits one event per stored product', async () => {
    const group = (await e2e.api('POST', '/api/v1/attribute-groups', { key: 'offer', name: { en: 'Offer' } }))
      .json as Json;
    const attribute = async (key: string, extra: Json) => {
      const r = await e2e.api('POST', '/api/v1/attributes', {
        key,
        association: 'product_and_sku',
        protected_by_lgpd: false,
        groups: [{ _id: group._id }],
        ...extra,
      });
      expect(r.status).toBe(201);
    };
    await attribute('price', { type: 'price' });
    await attribute('size', { type: 'metric', type_config: { units: ['cm'] }, required: true });
    await attribute('launch', { type: 'datetime' });
    const brand = (await e2e.api('POST', '/api/v1/brands', { code: 'acme', name: { en: 'Acme' } })).json as Json;

    const body = {
      code: 'cafe',
      name: { pt: 'Café' },
      type: 'simple',
      brand_id: brand._id,
      attribute_groups: [group._id],
      attributes: {
        price: { amount: 10.5, currency: 'BRL' },
        size: { amount: 12, unit: 'cm' },
        launch: '2026-05-01T10:00:00-03:00',
      },
    };
    const created = await e2e.client.POST('/api/v1/products', { body: body as never });
    expect(created.response.status).toBe(201);
    // A datetime is stored in UTC: one form per instant.
    expect(created.data).toMatchObject({
      ...body,
      attributes: { ...body.attributes, launch: '2026-05-01T13:00:00.000Z' },
    });
    const id = (created.data as Json)._id as string;
    expect((await e2e.api('GET', `/api/v1/products/${id}`)).json).toEqual(created.data);

    const bad = await e2e.api('POST', '/api/v1/products', {
      ...body,
      code: 'bad',
      attributes: { price: { amount: 'x', currency: 'BRL' }, launch: 'tomorrow' },
    });
    expect(bad.status).toBe(400);
    expect(((bad.json as Json).details as Json[]).map((d) => d.field)).toEqual([
      'attributes.price.amount',
      'attributes.launch',
      'attributes.size',
    ]);

    const found = (await e2e.api('GET', '/api/v1/products?_search=cafe&expand=brand')).json as Json;
    expect((found.data as Json[]).map((p) => [p.code, (p.brand as Json).code])).toEqual([['cafe', 'acme']]);

    const bulk = await e2e.api('POST', '/api/v1/products/bulk', {
      items: [
        { code: 'tea', name: { en: 'Tea' }, type: 'simple' },
        { code: 'bad-type', name: { en: 'Bad' }, type: 'bundle' },
      ],
    });
    expect(bulk.status).toBe(200);
    expect(((bulk.json as Json).data as Json[]).map((r) => r.status)).toEqual(['created', 'failed']);

    const types = async () =>
      (await e2e.stream.messages(`${e2e.stream.subjectPrefix}pim.catalog.products.>`)).map(
        (m) => (m.data as Json).type,
      );
    await eventually(async () => (await types()).length >= 2);
    expect(await types()).toEqual(['products.created', 'products.created']);
  });
});
