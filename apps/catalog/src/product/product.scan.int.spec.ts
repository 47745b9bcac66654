import 'reflect-metadata';
import { credentials, Metadata, type ClientReadableStream } from '@grpc/grpc-js';
import { PROTO_FILES, PROTO_ROOT, products as pb } from '@pim/contracts';
import { PreconditionFailedError, ValidationError, fromGrpcError } from '@pim/errors';
import { createLogger } from '@pim/logging';
import { GrpcApp, createRpcClient } from '@pim/rpc';
import { catalogTestContext, type CatalogTestContext } from '../testing/catalog.context';
import { productsGrpc } from '../products.module';

const logger = createLogger({ service: 'catalog-scan-test', level: 'silent' });
const TOTAL = 5_000;

/** Every message of a stream, or the domain error it ended with. */
async function drain<T>(stream: ClientReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  try {
    for await (const m of stream) out.push(m as T);
  } catch (err) {
    throw fromGrpcError(err, 'catalog');
  }
  return out;
}

const query = (q: Partial<pb.ScanProductsRequest['query']> = {}) => ({
  page: 1,
  limit: 0,
  skip: 0,
  sort: [],
  filters: [],
  expand: [],
  search: '',
  ...q,
});

// ScanProducts and UpdateProductPublication over a real gRPC server and the real Postgres.
describe('products internal contract (real gRPC, real Postgres)', () => {
  let ctx: CatalogTestContext;
  let app: GrpcApp;
  let address: string;
  let raw: pb.ProductsServiceClient;
  const ids: string[] = [];

  beforeAll(async () => {
    ctx = await catalogTestContext();
    app = new GrpcApp({
      logger,
      services: productsGrpc(ctx.services, logger),
      protoRoot: PROTO_ROOT,
      protoFiles: [PROTO_FILES.products],
      shutdownGraceMs: 2000,
    });
    address = `127.0.0.1:${await app.listen(0, '127.0.0.1')}`;
    raw = new pb.ProductsServiceClient(address, credentials.createInsecure());
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
      const results = await ctx.services.productBulk.upsert(items);
      ids.push(...results.map((r) => r._id!));
    }
  }, 120_000);

  afterAll(async () => {
    raw?.close();
    await app?.shutdown();
    await ctx?.close();
  });

  const scan = (req: Partial<pb.ScanProductsRequest>) =>
    drain(raw.scanProducts({ query: query(), ...req }, new Metadata()));

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
    const client = createRpcClient(pb.ProductsServiceClient, { service: 'catalog', address, deadlineMs: 5_000 });
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
    client.close();
  });
});
