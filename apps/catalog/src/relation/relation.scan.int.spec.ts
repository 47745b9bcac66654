import 'reflect-metadata';
import type { relations as pb } from '@pim/contracts';
import { ValidationError } from '@pim/errors';
import { catalogGrpcContext, listQuery, streamed, type CatalogGrpcContext } from '../testing/catalog.grpc';

const PRODUCTS = 1_000;

// ScanProductRelations over a real gRPC server and the real Postgres: the relations of up to
// 1,000 products at once, as the io-jobs app's exports ask for them.
describe('ScanProductRelations (real gRPC, real Postgres)', () => {
  let g: CatalogGrpcContext;
  const productIds: string[] = [];
  /** The ids of the relations written, by type. */
  const written: Record<'association' | 'eligible_service_products' | 'kit_products', string[]> = {
    association: [],
    eligible_service_products: [],
    kit_products: [],
  };
  let deleted: string;

  beforeAll(async () => {
    g = await catalogGrpcContext();
    const { ctx } = g;
    const items = Array.from({ length: PRODUCTS }, (_, i) => ({
      code: `rel-${i}`,
      name: { en: `Related ${i}` },
      type: i % 2 === 0 ? 'service' : 'kit',
    }));
    productIds.push(...(await ctx.services.productBulk.upsert(items)).map((r) => r._id!));
    const part = await ctx.newProduct();
    const relate = async (type: keyof typeof written, productId: string) => {
      const r = await ctx.services.productRelations.create({ type, product_id: productId, [type]: [{ id: part._id }] });
      written[type].push(r._id);
      return r._id;
    };
    // Services (even) are eligible for the part; every tenth of them also has an association;
    // kits (odd) among the first 40 hold the part.
    for (let i = 0; i < 60; i += 2) await relate('eligible_service_products', productIds[i]);
    for (let i = 0; i < 60; i += 10) await relate('association', productIds[i]);
    for (let i = 1; i < 40; i += 2)
      await ctx.services.productRelations
        .create({ type: 'kit_products', product_id: productIds[i], kit_products: [{ id: part._id, quantity: 2 }] })
        .then((r) => written.kit_products.push(r._id));
    deleted = written.association.pop()!;
    await ctx.services.productRelations.remove(deleted);
  }, 120_000);

  afterAll(async () => {
    await g?.close();
  });

  const scan = (req: Partial<pb.ScanProductRelationsRequest>) =>
    streamed<pb.ScanProductRelationsRequest, pb.ScanProductRelationsResponse>(g.relations.raw, 'scanProductRelations', {
      query: listQuery(),
      ...req,
    });
  const idsOf = (batches: pb.ScanProductRelationsResponse[]) => batches.flatMap((b) => b.data.map((r) => r.id));

  it('streams every live relation in id order, in batches of the asked size', async () => {
    const all = [...written.association, ...written.eligible_service_products, ...written.kit_products].sort();
    const batches = await scan({ batch_size: 20 });
    expect(batches.map((b) => b.data.length)).toEqual([20, 20, 15]);
    expect(idsOf(batches)).toEqual(all);
    expect(idsOf(batches)).not.toContain(deleted);
    expect(idsOf(await scan({}))).toEqual(all);
  });

  it(`takes product_id_in with ${PRODUCTS} ids and type_in, and answers the relations as messages`, async () => {
    const batches = await scan({
      query: listQuery({
        filters: [
          { field: 'product_id', op: 'in', values: productIds },
          { field: 'type', op: 'in', values: ['eligible_service_products', 'association'] },
        ],
      }),
      batch_size: 1_000,
    });
    expect(batches).toHaveLength(1);
    expect(idsOf(batches)).toEqual([...written.association, ...written.eligible_service_products].sort());
    const some = await scan({
      query: listQuery({
        filters: [
          { field: 'product_id', op: 'in', values: productIds.slice(0, 10) },
          { field: 'type', op: 'eq', values: ['kit_products'] },
        ],
      }),
    });
    const kits = some.flatMap((b) => b.data);
    expect(kits.map((r) => r.product_id).sort()).toEqual([1, 3, 5, 7, 9].map((i) => productIds[i]).sort());
    expect(kits[0]).toMatchObject({
      type: 'kit_products',
      kit_products: [{ quantity: 2 }],
      association: [],
      eligible_service_products: [],
      version: 1,
    });
  });

  it('refuses a bad batch size or filter before streaming anything', async () => {
    const big = await scan({ batch_size: 1_001 }).catch((e) => e);
    expect(big).toBeInstanceOf(ValidationError);
    expect(big.details).toEqual([{ field: 'batch_size', message: 'must be 1 to 1000' }]);
    const malformed = await scan({
      query: listQuery({ filters: [{ field: 'product_id', op: 'in', values: ['nope'] }] }),
    }).catch((e) => e);
    expect(malformed).toBeInstanceOf(ValidationError);
  });
});
