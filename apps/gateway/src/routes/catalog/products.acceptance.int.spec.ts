import { Client } from 'pg';
import { BAD_VALUES, EVERY_TYPE, EVERY_TYPE_OPTIONS, GOOD_VALUES, STORED_GOOD_VALUES } from '@pim/testing';
import { catalogHarness, type CatalogHarness } from '../../testing/catalog.harness';

type Json = Record<string, unknown>;

// The product acceptance cases of the catalog issue, only through HTTP: the gateway's routes →
// gRPC → the catalog app in its own process → Postgres (events read from the catalog's outbox).
describe('products over HTTP: 14 attribute types and the 1,000-item bulk upsert', () => {
  let h: CatalogHarness;
  let pg: Client;
  let group: string;

  beforeAll(async () => {
    h = await catalogHarness();
    pg = new Client({ connectionString: h.db.url });
    await pg.connect();
    group = (await h.request('POST', '/api/v1/attribute-groups', { key: 'every_type', name: { en: 'Every type' } }))
      .json._id as string;
    for (const [key, spec] of Object.entries(EVERY_TYPE)) {
      const created = await h.request('POST', '/api/v1/attributes', {
        key,
        name: { en: key },
        association: 'product_and_sku',
        protected_by_lgpd: false,
        groups: [{ _id: group }],
        ...spec,
      });
      expect(created.status).toBe(201);
      if (spec.type === 'select' || spec.type === 'multiselect') {
        for (const value of EVERY_TYPE_OPTIONS)
          expect(
            (await h.request('POST', `/api/v1/attributes/${created.json._id}/options`, { value, label: { en: value } }))
              .status,
          ).toBe(201);
      }
    }
  });

  afterAll(async () => {
    await pg?.end();
    await h?.close();
  });

  it('refuses a bad value of each of the 14 types with every key listed, and round-trips a valid product exactly', async () => {
    const bad = await h.request('POST', '/api/v1/products', {
      code: 'bad',
      name: { en: 'Bad' },
      type: 'simple',
      attribute_groups: [group],
      attributes: BAD_VALUES,
    });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ code: 400, name: 'ValidationError' });
    const keys = new Set(
      (bad.json.details as { field: string }[]).map((d) => d.field.split('.').slice(0, 2).join('.')),
    );
    expect([...keys].sort()).toEqual(
      Object.keys(BAD_VALUES)
        .map((k) => `attributes.${k}`)
        .sort(),
    );

    const input = {
      code: 'good',
      name: { pt: 'Café', en: 'Coffee' },
      type: 'simple',
      attribute_groups: [group],
      attributes: GOOD_VALUES,
      last_published_at: '2026-01-02T03:04:05.006Z',
      publishments: [{ channel: 'shop', published_at: '2026-01-02T03:04:05.006Z', status: 'PUBLISHED' }],
    };
    const created = await h.request('POST', '/api/v1/products', input);
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ ...input, attributes: STORED_GOOD_VALUES });
    expect(created.json.attributes).toEqual(STORED_GOOD_VALUES);
    const read = await h.request('GET', `/api/v1/products/${created.json._id}`);
    expect(read).toMatchObject({ status: 200, json: created.json });
  });

  it('bulk upserts 1,000 items with 10 bad ones: 990 stored, 10 item errors, one event per stored product', async () => {
    const items: Json[] = Array.from({ length: 1_000 }, (_, i) => ({
      code: `bulk-${i}`,
      name: { en: `Product ${i}` },
      type: 'simple',
      attribute_groups: [group],
      attributes: GOOD_VALUES,
    }));
    const badAt = [0, 111, 222, 333, 444, 555, 666, 777, 888, 999];
    badAt.forEach((i, n) => {
      items[i] =
        n % 2 === 0
          ? { ...items[i], attributes: { ...GOOD_VALUES, a_number: 'many' } }
          : { code: `bulk-${i}`, type: 'simple' };
    });
    const r = await h.request('POST', '/api/v1/products/bulk', { items });
    expect(r.status).toBe(200);
    const results = r.json.data as { index: number; status: string; _id?: string; error?: Json }[];
    expect(results).toHaveLength(1_000);
    expect(results.filter((x) => x.status === 'created')).toHaveLength(990);
    expect(results.filter((x) => x.status === 'failed').map((x) => x.index)).toEqual(badAt);
    expect(results[0].error).toMatchObject({ code: 400, details: [{ field: 'attributes.a_number' }] });
    expect(results[111].error).toMatchObject({ code: 400, details: [{ field: 'name' }] });

    const listed = await h.request('GET', '/api/v1/products?code_in=bulk-1,bulk-998&sort=code');
    expect((listed.json.data as Json[]).map((p) => p.code)).toEqual(['bulk-1', 'bulk-998']);
    expect(listed.json.total).toBe(2);
    const [{ n }] = (
      await pg.query(`SELECT count(*)::int AS n FROM catalog.products WHERE code LIKE 'bulk-%' AND deleted = false`)
    ).rows;
    expect(n).toBe(990);
    const events = (
      await pg.query(
        `SELECT envelope->'data'->>'_id' AS id FROM catalog.outbox WHERE type = 'products.created' AND envelope->'data'->>'code' LIKE 'bulk-%'`,
      )
    ).rows as { id: string }[];
    expect(events).toHaveLength(990);
    expect(new Set(events.map((e) => e.id))).toEqual(new Set(results.filter((x) => x._id).map((x) => x._id)));
  });

  it('answers the error cases of products, options and relations with the error object', async () => {
    const missing = '6740a1b2c3d4e5f601234567';
    const refs = await h.request('POST', '/api/v1/products', {
      code: 'refs',
      name: { en: 'Refs' },
      type: 'simple',
      brand_id: missing,
      categories: [missing],
    });
    expect(refs.status).toBe(400);
    expect(refs.json).toMatchObject({
      code: 400,
      name: 'ValidationError',
      details: expect.arrayContaining([
        expect.objectContaining({ field: 'brand_id' }),
        { field: 'categories.0', message: `no live category has _id '${missing}'` },
      ]),
    });

    // The product 'good' of the first test holds a_select = 'red'.
    const select = ((await h.request('GET', '/api/v1/attributes?key=a_select')).json.data as Json[])[0];
    const red = ((await h.request('GET', `/api/v1/attributes/${select._id}/options?value=red`)).json.data as Json[])[0];
    const inUse = await h.request('DELETE', `/api/v1/attributes/${select._id}/options/${red._id}`);
    expect(inUse.status).toBe(409);
    expect(inUse.json).toMatchObject({ code: 409, name: 'ConflictError' });
    expect(inUse.json.message).toMatch(/\d+ live products? uses? it/);

    const kit = (await h.request('POST', '/api/v1/products', { code: 'kit', name: { en: 'Kit' }, type: 'kit' })).json;
    const part = (await h.request('POST', '/api/v1/products', { code: 'part', name: { en: 'Part' }, type: 'simple' }))
      .json;
    const relation = (kit_products: unknown[]) =>
      h.request('POST', '/api/v1/product-relations', { type: 'kit_products', product_id: kit._id, kit_products });
    const fieldsOf = (r: { json: Json }) => (r.json.details as { field: string }[]).map((d) => d.field);
    const zero = await relation([{ id: part._id, quantity: 0 }]);
    expect(zero).toMatchObject({ status: 400, json: { name: 'ValidationError' } });
    expect(fieldsOf(zero)).toEqual(['kit_products.0.quantity']);
    expect(
      fieldsOf(
        await relation([
          { id: part._id, quantity: 1 },
          { id: part._id, quantity: 2 },
        ]),
      ),
    ).toEqual(['kit_products']);
    expect(fieldsOf(await relation([{ id: kit._id, quantity: 1 }]))).toEqual(['kit_products.0.id']);
    expect((await relation([{ id: part._id, quantity: 1 }])).status).toBe(201);
  });
});
