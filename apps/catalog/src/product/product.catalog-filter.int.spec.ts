import 'reflect-metadata';
import type { common, products as pb } from '@pim/contracts';
import { ValidationError } from '@pim/errors';
import { parseListQuery } from '@pim/query';
import { productListDecl } from '@pim/resources';
import { toProtoListQuery } from '@pim/rpc';
import { catalogGrpcContext, listQuery, streamed, type CatalogGrpcContext } from '../testing/catalog.grpc';

const MISSING = '6740a1b2c3d4e5f601234567';

type Filters = common.Filter[];

// `catalog_id` on products (catalog membership in the `catalogs` jsonb), over a real gRPC server
// and the real Postgres: ScanProducts and ListProducts, as the io-jobs app and the gateway send it.
describe('products filtered on catalog_id (real gRPC, real Postgres)', () => {
  let g: CatalogGrpcContext;
  const catalogs: Record<'c1' | 'c2' | 'empty', string> = { c1: '', c2: '', empty: '' };

  beforeAll(async () => {
    g = await catalogGrpcContext();
    const { ctx } = g;
    for (const name of Object.keys(catalogs) as (keyof typeof catalogs)[])
      catalogs[name] = (await ctx.newCatalog({ code: name }))._id;
    const group = (await ctx.newAttributeGroup())._id;
    await ctx.newAttribute({ key: 'color', groups: [{ _id: group }] });
    const product = (code: string, inCatalogs: string[], color?: string) =>
      ctx.newProduct({
        code,
        catalogs: inCatalogs.map((_id) => ({ _id, user_groups: [] })),
        attribute_groups: [group],
        attributes: color === undefined ? {} : { color },
      });
    await product('p1', [catalogs.c1]);
    await product('p2', [catalogs.c2, catalogs.c1], 'red');
    await product('p3', [catalogs.c2], 'red');
    await product('p4', []);
    const gone = await product('p5', [catalogs.c1]);
    await ctx.services.products.remove(gone._id);
  }, 60_000);

  afterAll(async () => {
    await g?.close();
  });

  const codesOf = (batches: pb.ScanProductsResponse[]) => batches.flatMap((b) => b.data.map((p) => p.code)).sort();
  const scan = async (filters: Filters, batch_size?: number) =>
    codesOf(await streamed(g.products.raw, 'scanProducts', { query: listQuery({ filters }), batch_size, omit: [] }));
  const list = async (filters: Filters) =>
    (
      await g.products.listProducts({ query: listQuery({ filters, sort: [{ field: 'code', direction: 'asc' }] }) })
    ).data.map((p) => p.code);
  const id = (name: keyof typeof catalogs) => catalogs[name];

  it('scans the live products in a catalog, in any of several, not in one, in none of several, in some or none', async () => {
    expect(await scan([{ field: 'catalog_id', op: 'eq', values: [id('c1')] }])).toEqual(['p1', 'p2']);
    expect(await scan([{ field: 'catalog_id', op: 'in', values: [id('c1'), id('c2')] }])).toEqual(['p1', 'p2', 'p3']);
    expect(await scan([{ field: 'catalog_id', op: 'ne', values: [id('c1')] }])).toEqual(['p3', 'p4']);
    expect(await scan([{ field: 'catalog_id', op: 'nin', values: [id('c1'), id('c2')] }])).toEqual(['p4']);
    expect(await scan([{ field: 'catalog_id', op: 'exists', values: ['false'] }])).toEqual(['p4']);
    expect(await scan([{ field: 'catalog_id', op: 'exists', values: ['true'] }])).toEqual(['p1', 'p2', 'p3']);
    expect(await scan([{ field: 'catalog_id', op: 'eq', values: [id('empty')] }])).toEqual([]);
  });

  it('keeps the filter on every keyset batch, beside declared and attribute filters', async () => {
    const batches = await streamed<pb.ScanProductsRequest, pb.ScanProductsResponse>(g.products.raw, 'scanProducts', {
      query: listQuery({ filters: [{ field: 'catalog_id', op: 'in', values: [id('c1'), id('c2')] }] }),
      batch_size: 2,
      omit: [],
    });
    expect(batches.map((b) => b.data.length)).toEqual([2, 1]);
    expect(
      await scan([
        { field: 'catalog_id', op: 'eq', values: [id('c2')] },
        { field: 'code', op: 'ne', values: ['p3'] },
      ]),
    ).toEqual(['p2']);
    expect(
      await scan([
        { field: 'attributes.color', op: 'eq', values: ['red'] },
        { field: 'catalog_id', op: 'eq', values: [id('c1')] },
      ]),
    ).toEqual(['p2']);
  });

  it('lists with it as the gateway parses GET /products?catalog_id_in=…, with the exact total', async () => {
    const parsed = parseListQuery(productListDecl, {
      catalog_id_in: `${id('c1')},${id('c2')}`,
      sort: 'code',
      limit: '2',
    });
    expect(parsed.filters).toEqual([{ field: 'catalog_id', op: 'in', values: [id('c1'), id('c2')] }]);
    const page = await g.products.listProducts({ query: toProtoListQuery(parsed) });
    expect(page.data.map((p) => p.code)).toEqual(['p1', 'p2']);
    expect(page.page_info?.total).toBe(3);
    expect(await list([{ field: 'catalog_id', op: 'nin', values: [id('c2')] }])).toEqual(['p1', 'p4']);
    const json = await g.products.listProductsJson({
      query: toProtoListQuery(parseListQuery(productListDecl, { catalog_id: id('c2'), sort: 'code' })),
    });
    expect((JSON.parse(Buffer.from(json.data_json).toString('utf8')) as { code: string }[]).map((p) => p.code)).toEqual(
      ['p2', 'p3'],
    );
  });

  it('refuses a malformed id, a catalog that is not live and another operator, naming each filter', async () => {
    const refused = await list([
      { field: 'catalog_id', op: 'eq', values: ['nope'] },
      { field: 'catalog_id', op: 'in', values: [id('c1'), MISSING] },
      { field: 'catalog_id', op: 'gt', values: [id('c1')] },
    ]).catch((e) => e);
    expect(refused).toBeInstanceOf(ValidationError);
    expect(refused.details).toEqual([
      { field: 'catalog_id', message: "'nope' is not an _id (24 lowercase hexadecimal characters)" },
      { field: 'catalog_id_gt', message: 'takes catalog_id=, _ne, _in, _nin or _exists, not _gt' },
      { field: 'catalog_id_in', message: `names no live catalog: ${MISSING}` },
    ]);
    await expect(scan([{ field: 'catalog_id', op: 'eq', values: [MISSING] }])).rejects.toBeInstanceOf(ValidationError);
    // The gateway's parser refuses what the declaration does not take before anything reaches the catalog.
    expect(() => parseListQuery(productListDecl, { catalog_id_gt: id('c1') })).toThrow(ValidationError);
    expect(() => parseListQuery(productListDecl, { sort: 'catalog_id' })).toThrow(ValidationError);
  });
});
