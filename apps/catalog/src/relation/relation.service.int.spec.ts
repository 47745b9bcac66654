import 'reflect-metadata';
import { ConflictError, PreconditionFailedError, ValidationError } from '@pim/errors';
import { parseListQuery } from '@pim/query';
import { productRelationListDecl, type ProductRelationInput } from '@pim/resources';
import { useCatalogContext, type CatalogTestContext } from '../testing/catalog.context';

const MISSING = '6740a1b2c3d4e5f601234567';

// Product relations against the real Postgres: every rule of a write, one relation per product
// and type, list filters and events.
describe('product relations (real Postgres)', () => {
  let ctx: CatalogTestContext;
  useCatalogContext((c) => (ctx = c));

  const relations = () => ctx.services.productRelations;
  const create = (input: Record<string, unknown>) => relations().create(input);
  const detailsOf = async (work: Promise<unknown>) => {
    const err = await work.catch((e) => e);
    expect(err).toBeInstanceOf(ValidationError);
    return ((err as ValidationError).details ?? []).map((d) => d.field);
  };

  it('stores a kit with its parts and quantities, shows only the list its type names, and emits events', async () => {
    const kit = await ctx.newProduct({ type: 'kit' });
    const [cup, saucer] = [await ctx.newProduct(), await ctx.newProduct()];
    const install = await ctx.newProduct({ type: 'service' });
    const parts: ProductRelationInput = {
      type: 'kit_products',
      product_id: kit._id,
      kit_products: [
        { id: cup._id, quantity: 2 },
        { id: saucer._id, quantity: 1.5 },
      ],
    };
    const created = await create(parts);
    expect(created).toEqual({
      _id: created._id,
      ...parts,
      version: 1,
      created_at: created.created_at,
      updated_at: created.updated_at,
    });
    expect(await relations().get(created._id)).toEqual(created);
    const services = await create({
      type: 'kit_services',
      product_id: kit._id,
      kit_services: [{ id: install._id, quantity: 1 }],
    });

    const list = async (params: Record<string, string>) =>
      (await relations().list(parseListQuery(productRelationListDecl, params))).data.map((r) => r._id).sort();
    expect(await list({ product_id: kit._id })).toEqual([created._id, services._id].sort());
    expect(await list({ product_id: kit._id, type: 'kit_services' })).toEqual([services._id]);
    expect(await list({ product_id: cup._id })).toEqual([]);

    const patched = await relations().patch(created._id, { kit_products: [{ id: cup._id, quantity: 3 }] }, 1);
    expect(patched).toMatchObject({ version: 2, kit_products: [{ id: cup._id, quantity: 3 }] });
    await expect(
      relations().patch(created._id, { kit_products: [{ id: saucer._id, quantity: 1 }] }, 1),
    ).rejects.toBeInstanceOf(PreconditionFailedError);
    await relations().remove(created._id);
    await expect(relations().get(created._id)).rejects.toMatchObject({ status: 404 });

    const events = (await ctx.events()).filter((e) => e.type.startsWith('product_relations.'));
    expect(events.map((e) => e.type)).toEqual([
      'product_relations.created',
      'product_relations.created',
      'product_relations.updated',
      'product_relations.deleted',
    ]);
  });

  it('needs a live product_id', async () => {
    const part = await ctx.newProduct();
    expect(
      await detailsOf(create({ type: 'association', product_id: MISSING, association: [{ id: part._id }] })),
    ).toEqual(['product_id']);
    const gone = await ctx.newProduct();
    await ctx.services.products.remove(gone._id);
    expect(
      await detailsOf(create({ type: 'association', product_id: gone._id, association: [{ id: part._id }] })),
    ).toEqual(['product_id']);
  });

  it('takes in kit_products only live products that are not services, and in kit_services only services', async () => {
    const kit = await ctx.newProduct({ type: 'kit' });
    const part = await ctx.newProduct();
    const service = await ctx.newProduct({ type: 'service' });
    expect(
      await detailsOf(
        create({
          type: 'kit_products',
          product_id: kit._id,
          kit_products: [
            { id: part._id, quantity: 1 },
            { id: service._id, quantity: 1 },
            { id: MISSING, quantity: 1 },
          ],
        }),
      ),
    ).toEqual(['kit_products.1.id', 'kit_products.2.id']);
    expect(
      await detailsOf(
        create({
          type: 'kit_services',
          product_id: kit._id,
          kit_services: [
            { id: service._id, quantity: 1 },
            { id: part._id, quantity: 1 },
          ],
        }),
      ),
    ).toEqual(['kit_services.1.id']);
  });

  it('takes in the service product lists live products, and in the category lists live categories', async () => {
    const service = await ctx.newProduct({ type: 'service' });
    const product = await ctx.newProduct();
    const category = await ctx.newCategory();
    for (const type of ['eligible_service_products', 'ineligible_service_products', 'association'] as const) {
      expect(
        await detailsOf(create({ type, product_id: service._id, [type]: [{ id: product._id }, { id: category._id }] })),
      ).toEqual([`${type}.1.id`]);
    }
    expect(
      await detailsOf(
        create({
          type: 'eligible_service_categories',
          product_id: service._id,
          eligible_service_categories: [{ id: category._id }, { id: product._id }],
        }),
      ),
    ).toEqual(['eligible_service_categories.1.id']);
    const ok = await create({
      type: 'eligible_service_categories',
      product_id: service._id,
      eligible_service_categories: [{ id: category._id }],
    });
    expect(ok.eligible_service_categories).toEqual([{ id: category._id }]);
  });

  it('needs the category tree of each ineligible service category, and the right one', async () => {
    const service = await ctx.newProduct({ type: 'service' });
    const category = await ctx.newCategory();
    const other = await ctx.newCategoryTree();
    const type = 'ineligible_service_categories';
    expect(await detailsOf(create({ type, product_id: service._id, [type]: [{ id: category._id }] }))).toEqual([
      `${type}.0.category_tree_id`,
    ]);
    expect(
      await detailsOf(
        create({ type, product_id: service._id, [type]: [{ id: category._id, category_tree_id: other._id }] }),
      ),
    ).toEqual([`${type}.0.category_tree_id`]);
    const ok = await create({
      type,
      product_id: service._id,
      [type]: [{ id: category._id, category_tree_id: category.category_tree_id }],
    });
    expect(ok[type]).toEqual([{ id: category._id, category_tree_id: category.category_tree_id }]);
  });

  it('needs positive quantities, distinct ids, no product in its own list, and exactly the list its type names', async () => {
    const kit = await ctx.newProduct({ type: 'kit' });
    const part = await ctx.newProduct();
    const base = { type: 'kit_products', product_id: kit._id };
    expect(await detailsOf(create({ ...base, kit_products: [{ id: part._id, quantity: 0 }] }))).toEqual([
      'kit_products.0.quantity',
    ]);
    expect(await detailsOf(create({ ...base, kit_products: [{ id: part._id, quantity: -2 }] }))).toEqual([
      'kit_products.0.quantity',
    ]);
    expect(await detailsOf(create({ ...base, kit_products: [{ id: part._id }] }))).toEqual(['kit_products.0.quantity']);
    expect(
      await detailsOf(
        create({
          ...base,
          kit_products: [
            { id: part._id, quantity: 1 },
            { id: part._id, quantity: 2 },
          ],
        }),
      ),
    ).toEqual(['kit_products']);
    expect(await detailsOf(create({ ...base, kit_products: [{ id: kit._id, quantity: 1 }] }))).toEqual([
      'kit_products.0.id',
    ]);
    expect(await detailsOf(create({ ...base, kit_products: [] }))).toEqual(['kit_products']);
    expect(await detailsOf(create(base))).toEqual(['kit_products']);
    expect(
      await detailsOf(
        create({ ...base, kit_products: [{ id: part._id, quantity: 1 }], association: [{ id: part._id }] }),
      ),
    ).toEqual(['association']);
    expect(
      await detailsOf(create({ ...base, type: 'bundle', kit_products: [{ id: part._id, quantity: 1 }] })),
    ).toContain('type');
  });

  it('keeps one live relation per product and type', async () => {
    const product = await ctx.newProduct();
    const [a, b] = [await ctx.newProduct(), await ctx.newProduct()];
    const first = await create({ type: 'association', product_id: product._id, association: [{ id: a._id }] });
    const again = await create({ type: 'association', product_id: product._id, association: [{ id: b._id }] }).catch(
      (e) => e,
    );
    expect(again).toBeInstanceOf(ConflictError);
    expect((again as ConflictError).message).toBe(
      `Product '${product._id}' already has a live association relation (${first._id})`,
    );
    const kit = await create({
      type: 'kit_products',
      product_id: product._id,
      kit_products: [{ id: a._id, quantity: 1 }],
    });
    expect(kit.type).toBe('kit_products');
    await relations().remove(first._id);
    const replaced = await create({ type: 'association', product_id: product._id, association: [{ id: b._id }] });
    expect((await relations().batchGet([], [`${product._id}:association`])).map((r) => r._id)).toEqual([replaced._id]);
  });

  it('keeps products and categories that live relations name from being deleted', async () => {
    const service = await ctx.newProduct({ type: 'service' });
    const part = await ctx.newProduct();
    const category = await ctx.newCategory();
    const { products, categories } = ctx.services;
    const eligible = await create({
      type: 'eligible_service_products',
      product_id: service._id,
      eligible_service_products: [{ id: part._id }],
    });
    const excluded = await create({
      type: 'eligible_service_categories',
      product_id: service._id,
      eligible_service_categories: [{ id: category._id }],
    });
    for (const [work, name] of [
      [products.remove(part._id), part.code],
      [products.remove(service._id), service.code],
      [categories.remove(category._id), category.code],
    ] as const) {
      const err = await work.catch((e) => e);
      expect(err).toBeInstanceOf(ConflictError);
      expect((err as ConflictError).message).toMatch(
        new RegExp(`'${name}' is still used by \\d live product relations?`),
      );
    }
    await relations().remove(eligible._id);
    await products.remove(part._id);
    await relations().remove(excluded._id);
    await categories.remove(category._id);
    await products.remove(service._id);
    await expect(products.get(service._id)).rejects.toMatchObject({ status: 404 });
  });
});
