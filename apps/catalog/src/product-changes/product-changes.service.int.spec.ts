import 'reflect-metadata';
import type { products as pb } from '@pim/contracts';
import { NotFoundError, ValidationError } from '@pim/errors';
import { newId } from '@pim/ids';
import { useCatalogContext, type CatalogTestContext } from '../testing/catalog.context';

const APPROVED_AT = '2026-11-24T10:00:00.000Z';

// Approved changes applied to a product against the real Postgres: one transaction with the
// ledger row, the relation lists and the product, at most once per change id, nothing on a refusal.
describe('product changes (real Postgres)', () => {
  let ctx: CatalogTestContext;
  useCatalogContext((c) => (ctx = c));

  const changes = () => ctx.services.productChanges;
  const request = (productId: string, over: Partial<pb.ApplyProductChangesRequest> = {}) => {
    const id = newId();
    return {
      change_id: id,
      product_id: productId,
      relations: [],
      attribute_groups: [],
      product_approval: id,
      approved_at: APPROVED_AT,
      ...over,
    } as pb.ApplyProductChangesRequest;
  };
  const relation = async (productId: string, type: string): Promise<Record<string, unknown> | undefined> => {
    const [found] = await ctx.services.productRelations.batchGet([], [`${productId}:${type}`]);
    return found as unknown as Record<string, unknown> | undefined;
  };
  const ledger = async () => (await ctx.ds.query(`SELECT change_id FROM applied_changes`)).length as number;

  it('creates, changes and removes relations, adds attribute groups and marks the product, once per change id', async () => {
    const kit = await ctx.newProduct({ type: 'kit' });
    const [a, b, c] = [await ctx.newProduct(), await ctx.newProduct(), await ctx.newProduct()];
    const group = await ctx.newAttributeGroup();
    const first = request(kit._id, {
      relations: [
        {
          type: 'kit_products',
          associate: [
            { id: a._id, quantity: 2 },
            { id: b._id, quantity: 1 },
          ],
          disassociate: [],
        },
      ],
      attribute_groups: [group._id],
    });
    const done = await changes().apply(first);
    expect(done).toMatchObject({ applied_now: true, product_version: 2 });
    expect((await relation(kit._id, 'kit_products'))?.kit_products).toEqual([
      { id: a._id, quantity: 2 },
      { id: b._id, quantity: 1 },
    ]);
    const product = await ctx.services.products.get(kit._id);
    expect(product).toMatchObject({
      attribute_groups: [group._id],
      product_approval: first.product_approval,
      last_approval_at: APPROVED_AT,
      version: 2,
    });
    const eventsBefore = (await ctx.events()).length;
    expect(await changes().apply(first)).toEqual({ ...done, applied_now: false });
    expect((await ctx.events()).length).toBe(eventsBefore);
    expect((await ctx.services.products.get(kit._id)).version).toBe(2);

    // b takes a new quantity, a leaves, c joins; then every part leaves and the relation goes.
    await changes().apply(
      request(kit._id, {
        relations: [
          {
            type: 'kit_products',
            associate: [
              { id: b._id, quantity: 5 },
              { id: c._id, quantity: 1 },
            ],
            disassociate: [{ id: a._id }],
          },
        ],
        attribute_groups: [group._id],
      }),
    );
    expect((await relation(kit._id, 'kit_products'))?.kit_products).toEqual([
      { id: b._id, quantity: 5 },
      { id: c._id, quantity: 1 },
    ]);
    expect((await ctx.services.products.get(kit._id)).attribute_groups).toEqual([group._id]);
    await changes().apply(
      request(kit._id, {
        relations: [{ type: 'kit_products', associate: [], disassociate: [{ id: b._id }, { id: c._id }] }],
      }),
    );
    expect(await relation(kit._id, 'kit_products')).toBeUndefined();
    expect(await ledger()).toBe(3);
  });

  it('writes nothing when a rule refuses: a service in kit_products, a category of another tree, a deleted product', async () => {
    const kit = await ctx.newProduct({ type: 'kit' });
    const service = await ctx.newProduct({ type: 'service' });
    const part = await ctx.newProduct();
    const group = await ctx.newAttributeGroup();
    const refused = await changes()
      .apply(
        request(kit._id, {
          relations: [
            {
              type: 'kit_products',
              associate: [
                { id: part._id, quantity: 1 },
                { id: service._id, quantity: 1 },
              ],
              disassociate: [],
            },
          ],
          attribute_groups: [group._id],
        }),
      )
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).details?.map((d) => d.field)).toEqual(['kit_products.1.id']);

    const category = await ctx.newCategory();
    const otherTree = await ctx.newCategoryTree();
    const wrongTree = await changes()
      .apply(
        request(service._id, {
          relations: [
            {
              type: 'eligible_service_categories',
              associate: [{ id: category._id, category_tree_id: otherTree._id }],
              disassociate: [],
            },
          ],
        }),
      )
      .catch((e: unknown) => e);
    expect((wrongTree as ValidationError).details?.map((d) => d.field)).toEqual([
      'eligible_service_categories.0.category_tree_id',
    ]);

    await ctx.services.products.remove(part._id);
    const gone = await changes()
      .apply(request(part._id, { attribute_groups: [group._id] }))
      .catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(NotFoundError);

    const bad = await changes()
      .apply(
        request(kit._id, {
          relations: [{ type: 'association', associate: [{ id: 'x' }], disassociate: [] }],
        }),
      )
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ValidationError);

    expect(await ledger()).toBe(0);
    expect((await ctx.services.products.get(kit._id)).version).toBe(1);
    expect(await relation(kit._id, 'kit_products')).toBeUndefined();
  });

  it('applies a change once when two calls race with one change id', async () => {
    const kit = await ctx.newProduct({ type: 'kit' });
    const part = await ctx.newProduct();
    const req = request(kit._id, {
      relations: [{ type: 'kit_products', associate: [{ id: part._id, quantity: 3 }], disassociate: [] }],
    });
    const results = await Promise.all([changes().apply(req), changes().apply(req), changes().apply(req)]);
    expect(results.filter((r) => r.applied_now)).toHaveLength(1);
    expect(new Set(results.map((r) => r.applied_at)).size).toBe(1);
    expect((await ctx.services.products.get(kit._id)).version).toBe(2);
    expect(await ledger()).toBe(1);
  });
});
