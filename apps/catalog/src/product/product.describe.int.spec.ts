import 'reflect-metadata';
import type { common, products as pb } from '@pim/contracts';
import { ValidationError } from '@pim/errors';
import { catalogGrpcContext, listQuery, streamed, type CatalogGrpcContext } from '../testing/catalog.grpc';

const NONE = { total: 0, languages: [], attribute_keys: [] };

// DescribeProducts over a real gRPC server and the real Postgres: what the products a query
// matches hold, counted and collected by the database.
describe('DescribeProducts (real gRPC, real Postgres)', () => {
  let g: CatalogGrpcContext;
  let inCatalog: string;

  beforeAll(async () => {
    g = await catalogGrpcContext();
    const { ctx } = g;
    inCatalog = (await ctx.newCatalog())._id;
    const group = (await ctx.newAttributeGroup())._id;
    const groups = [{ _id: group }];
    await ctx.newAttribute({ key: 'title', type: 'text', type_config: { localizable: true }, groups });
    await ctx.newAttribute({ key: 'notes', type: 'textarea', type_config: { localizable: true }, groups });
    await ctx.newAttribute({ key: 'ean', type: 'text', groups });
    await ctx.newAttribute({ key: 'price', type: 'price', type_config: { currencies: ['BRL'] }, groups });
    const product = (code: string, fields: Record<string, unknown>, catalog = false) =>
      ctx.newProduct({
        code,
        attribute_groups: [group],
        catalogs: catalog ? [{ _id: inCatalog, user_groups: [] }] : [],
        ...fields,
      });
    await product('a', { name: { en: 'A', pt: 'A' }, attributes: { title: { fr: 'Titre' }, ean: '1' } }, true);
    await product(
      'b',
      {
        name: { en: 'B' },
        description: { es: 'Bueno' },
        attributes: { price: { amount: 1, currency: 'BRL' }, notes: { de: 'Notiz' } },
      },
      true,
    );
    await product('c', { name: { it: 'C' } });
    const gone = await product('d', { name: { ja: 'D' }, attributes: { ean: '2' } });
    await ctx.services.products.remove(gone._id);
  }, 60_000);

  afterAll(async () => {
    await g?.close();
  });

  const describeProducts = (q: Partial<common.ListQuery> = {}) => g.products.describeProducts({ query: listQuery(q) });

  it('counts the live products and collects the languages of their texts and their attribute keys, sorted', async () => {
    expect(await describeProducts()).toEqual({
      total: 3,
      languages: ['de', 'en', 'es', 'fr', 'it', 'pt'],
      attribute_keys: ['ean', 'notes', 'price', 'title'],
    });
  });

  it('describes exactly what a scan of the same query streams: declared, catalog and attribute filters and search', async () => {
    const inIt = [{ field: 'catalog_id', op: 'eq', values: [inCatalog] }];
    const scanned = await streamed<pb.ScanProductsRequest, pb.ScanProductsResponse>(g.products.raw, 'scanProducts', {
      query: listQuery({ filters: inIt }),
      omit: [],
    });
    expect(scanned.flatMap((b) => b.data.map((p) => p.code)).sort()).toEqual(['a', 'b']);
    expect(await describeProducts({ filters: inIt })).toEqual({
      total: 2,
      languages: ['de', 'en', 'es', 'fr', 'pt'],
      attribute_keys: ['ean', 'notes', 'price', 'title'],
    });
    expect(await describeProducts({ filters: [{ field: 'attributes.ean', op: 'eq', values: ['1'] }] })).toEqual({
      total: 1,
      languages: ['en', 'fr', 'pt'],
      attribute_keys: ['ean', 'title'],
    });
    expect(await describeProducts({ filters: [{ field: 'code', op: 'eq', values: ['c'] }] })).toEqual({
      total: 1,
      languages: ['it'],
      attribute_keys: [],
    });
    expect(await describeProducts({ search: 'nothing-like-this' })).toEqual(NONE);
    // Sort and window are ignored: the description is of every match, not of a page.
    expect((await describeProducts({ limit: 1, page: 3, sort: [{ field: 'code', direction: 'desc' }] })).total).toBe(3);
  });

  it('refuses a bad filter like a list does', async () => {
    const err = await describeProducts({ filters: [{ field: 'attributes.ghost', op: 'eq', values: ['x'] }] }).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.details).toEqual([{ field: 'attributes.ghost', message: 'names no live attribute key' }]);
  });

  it('aggregates thousands of products in the database', async () => {
    const items = Array.from({ length: 3_000 }, (_, i) => ({
      code: `many-${i}`,
      name: i % 2 === 0 ? { en: `Many ${i}` } : { en: `Many ${i}`, 'pt-BR': `Muitos ${i}` },
      type: 'simple',
      tags: ['many'],
    }));
    for (let start = 0; start < items.length; start += 1_000)
      await g.ctx.services.productBulk.upsert(items.slice(start, start + 1_000));
    expect(await describeProducts({ filters: [{ field: 'tags', op: 'eq', values: ['many'] }] })).toEqual({
      total: 3_000,
      languages: ['en', 'pt-BR'],
      attribute_keys: [],
    });
  }, 60_000);
});
