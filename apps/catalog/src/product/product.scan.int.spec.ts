import 'reflect-metadata';
import type { products as pb } from '@pim/contracts';
import { PreconditionFailedError, ValidationError } from '@pim/errors';
import { catalogGrpcContext, listQuery, streamed, type CatalogGrpcContext } from '../testing/catalog.grpc';

const TOTAL = 5_000;

const query = (q: Partial<pb.ScanProductsRequest['query']> = {}) => listQuery({ limit: 0, ...q });

// ScanProducts and UpdateProductPublication over a real gRPC server and the real Postgres.
describe('products internal contract (real gRPC, real Postgres)', () => {
  let g: CatalogGrpcContext;
  const ids: string[] = [];

  beforeAll(async () => {
    g = await catalogGrpcContext();
    for (let start = 0; start < TOTAL; start += 1_000) {
      const items = Array.from({ length: 1_000 }, (_, i) => {
        const n = start + i;
        return {
          code: `scan-${n}`,
          name: { en: n % 10 === 0 ? `Tenth ${n}` : `Item ${n}` },
          type: 'simple',
          tags: n % 2 === 0 ? ['even'] : [],
        };
      });
      const results = await g.ctx.services.productBulk.upsert(items);
      ids.push(...results.map((r) => r._id!));
    }
  }, 120_000);

  afterAll(async () => {
    await g?.close();
  });

  const scan = (req: Partial<pb.ScanProductsRequest>) =>
    streamed<pb.ScanProductsRequest, pb.ScanProductsResponse>(g.products.raw, 'scanProducts', {
      query: query(),
      omit: [],
      ...req,
    });

  it(`streams all ${TOTAL} products complete and in id order, in batches of the asked size`, async () => {
    const batches = await scan({ batch_size: 700 });
    expect(batches.map((b) => b.data.length)).toEqual([700, 700, 700, 700, 700, 700, 700, 100]);
    const streamed = batches.flatMap((b) => b.data.map((p) => p.id));
    expect(streamed).toEqual([...ids].sort());
    expect(new Set(streamed).size).toBe(TOTAL);
    const defaults = await scan({});
    expect(defaults.map((b) => b.data.length)).toEqual([500, 500, 500, 500, 500, 500, 500, 500, 500, 500]);
  });

  it('applies the list filters and search, and ignores sort and window', async () => {
    const even = (
      await scan({
        query: query({
          filters: [{ field: 'tags', op: 'eq', values: ['even'] }],
          sort: [{ field: 'code', direction: 'desc' }],
          limit: 3,
          page: 7,
        }),
      })
    ).flatMap((b) => b.data);
    expect(even).toHaveLength(TOTAL / 2);
    expect(even.every((p) => p.tags.includes('even'))).toBe(true);
    expect(even.map((p) => p.id)).toEqual(even.map((p) => p.id).sort());
    const tenth = (await scan({ query: query({ search: 'tenth' }), batch_size: 1_000 })).flatMap((b) =>
      b.data.map((p) => p.code),
    );
    expect(tenth.sort()).toEqual(Array.from({ length: TOTAL / 10 }, (_, i) => `scan-${i * 10}`).sort());
    expect(await scan({ query: query({ search: 'nothing-like-this' }) })).toEqual([]);
  });

  it('leaves out the fields asked (the snapshots an export does not need), and only optional ones', async () => {
    const { ctx } = g;
    const group = (await ctx.newAttributeGroup())._id;
    await ctx.newAttribute({ key: 'scan_note', groups: [{ _id: group }] });
    const p = await ctx.newProduct({ attribute_groups: [group], attributes: { scan_note: 'kept' } });
    const one = query({ filters: [{ field: '_id', op: 'eq', values: [p._id] }] });
    const [full] = (await scan({ query: one }))[0].data;
    const [lean] = (await scan({ query: one, omit: ['attributes_schema_snapshot', 'attributes_options_snapshot'] }))[0]
      .data;
    expect(lean.attributes).toEqual({ scan_note: 'kept' });
    expect(Object.keys(full.attributes_schema_snapshot ?? {}).length).toBeGreaterThan(0);
    expect(lean.attributes_schema_snapshot ?? {}).toEqual({});
    expect(lean.attributes_options_snapshot ?? {}).toEqual({});
    const { attributes_schema_snapshot: _s, attributes_options_snapshot: _o, ...rest } = full;
    expect(lean).toMatchObject(rest);
    const bad = await scan({ omit: ['version', 'colour'] }).catch((e) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect(bad.message).toBe("Cannot leave out 'version', 'colour'");
  });

  it('refuses a bad batch size or filter before streaming anything', async () => {
    const big = await scan({ batch_size: 1_001 }).catch((e) => e);
    expect(big).toBeInstanceOf(ValidationError);
    expect(big.details).toEqual([{ field: 'batch_size', message: 'must be 1 to 1000' }]);
    const badFilter = await scan({ query: query({ filters: [{ field: 'nope', op: 'eq', values: ['x'] }] }) }).catch(
      (e) => e,
    );
    expect(badFilter).toBeInstanceOf(ValidationError);
  });

  it('writes the publication fields alone, with If-Match and an event', async () => {
    const { ctx, products: client } = g;
    const before = await ctx.services.products.get(ids[0]);
    const publishments = [{ channel: 'shop', published_at: '2026-11-01T10:00:00.000Z', status: 'PUBLISHED' }];
    const r = await client.updateProductPublication({
      id: ids[0],
      published: true,
      last_published_at: '2026-11-01T10:00:00.000Z',
      last_publishment_id: 'pub-1',
      publishments,
      expected_version: before.version,
    });
    expect(r.data).toMatchObject({
      id: ids[0],
      published: true,
      last_published_at: '2026-11-01T10:00:00.000Z',
      last_publishment_id: 'pub-1',
      publishments,
      version: before.version + 1,
      code: before.code,
    });
    const after = await ctx.services.products.get(ids[0]);
    expect({ ...after, published: before.published, version: before.version, updated_at: before.updated_at }).toEqual({
      ...before,
      last_published_at: after.last_published_at,
      last_publishment_id: 'pub-1',
      publishments,
    });

    const stale = await client
      .updateProductPublication({ id: ids[0], published: false, publishments: [], expected_version: before.version })
      .catch((e) => e);
    expect(stale).toBeInstanceOf(PreconditionFailedError);
    const cleared = await client.updateProductPublication({ id: ids[0], published: false, publishments: [] });
    expect(cleared.data).toMatchObject({ published: false, publishments: [] });
    expect(cleared.data?.last_published_at).toBeUndefined();
    const events = (await ctx.events()).filter(
      (e) => e.type === 'products.updated' && (e.data as { _id: string })._id === ids[0],
    );
    expect(events).toHaveLength(2);
  });

  it('records outcomes of many publications in one call, merged by channel, naming products that are gone', async () => {
    const { ctx, products: client } = g;
    const gone = '6740a1b2c3d4e5f60123ffff';
    const before = await ctx.services.products.get(ids[1]);
    const r = await client.recordPublishments({
      outcomes: [
        {
          product_id: ids[1],
          channel: 'shop',
          status: 'PUBLISHED',
          at: '2026-11-02T10:00:00.000Z',
          publication_id: 'p2',
        },
        {
          product_id: ids[1],
          channel: 'market',
          status: 'FAILED',
          at: '2026-11-02T10:00:01.000Z',
          publication_id: 'p3',
        },
        {
          product_id: ids[2],
          channel: 'shop',
          status: 'PUBLISHED',
          at: '2026-11-02T10:00:02.000Z',
          publication_id: 'p4',
        },
        {
          product_id: gone,
          channel: 'shop',
          status: 'PUBLISHED',
          at: '2026-11-02T10:00:03.000Z',
          publication_id: 'p5',
        },
      ],
    });
    expect(r.missing_product_ids).toEqual([gone]);
    expect(await ctx.services.products.get(ids[1])).toMatchObject({
      published: true,
      last_publishment_id: 'p2',
      publishments: [{ channel: 'shop', published_at: '2026-11-02T10:00:00.000Z', status: 'PUBLISHED' }],
      version: before.version + 1,
    });
    expect((await ctx.services.products.get(ids[2])).last_publishment_id).toBe('p4');
    const bad = await client
      .recordPublishments({
        outcomes: [{ product_id: ids[1], channel: 'shop', status: 'DONE', at: 'x', publication_id: 'p' }],
      })
      .catch((e) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect(bad.details.map((d: { message: string }) => d.message)).toEqual([
      'status must be PUBLISHED or FAILED',
      'at must be an ISO 8601 date',
    ]);
  });
});
