import { attributes as apb, products as ppb, relations as rpb, taxonomy as pb, webhooks as wpb } from '@pim/contracts';
import { recordClient } from './record.client';

/** A client that answers each call with its method name and request, so the test sees what was called. */
const echo = new Proxy({}, { get: (_t, method) => (req: unknown) => Promise.resolve({ method, req }) }) as Record<
  string,
  unknown
>;

describe('recordClient: the record calls of a generated service, found by name', () => {
  it.each([
    ['Brand', 'Brands', pb.BrandsServiceService],
    ['CategoryTree', 'CategoryTrees', pb.CategoryTreesServiceService],
    ['Category', 'Categories', pb.CategoriesServiceService],
    ['Family', 'Families', pb.FamiliesServiceService],
    ['Catalog', 'Catalogs', pb.CatalogsServiceService],
    ['Attribute', 'Attributes', apb.AttributesServiceService],
    ['AttributeGroup', 'AttributeGroups', apb.AttributeGroupsServiceService],
    ['AttributeOption', 'AttributeOptions', apb.AttributeOptionsServiceService],
    ['Product', 'Products', ppb.ProductsServiceService],
    ['ProductRelation', 'ProductRelations', rpb.ProductRelationsServiceService],
  ])('finds every call of the %s service', async (one, many, definition) => {
    const c = recordClient(echo, definition, { one, many, handles: 'codes' });
    expect(await c.get({ id: 'x' })).toEqual({ method: `get${one}`, req: { id: 'x' } });
    expect(await c.list({ query: {} as never })).toMatchObject({ method: `list${many}` });
    expect(await c.batchGet({ ids: ['a'], handles: ['b'] })).toEqual({
      method: `batchGet${many}`,
      req: { ids: ['a'], codes: ['b'] },
    });
  });

  it('adds the JSON reads a service has, and the scope of a nested resource to every request', async () => {
    expect(
      recordClient(echo, ppb.ProductsServiceService, { one: 'Product', many: 'Products', handles: 'codes' }).getJson,
    ).toBeDefined();
    expect(
      recordClient(echo, pb.BrandsServiceService, { one: 'Brand', many: 'Brands', handles: 'codes' }).getJson,
    ).toBeUndefined();
    const options = recordClient(
      echo,
      apb.AttributeOptionsServiceService,
      { one: 'AttributeOption', many: 'AttributeOptions', handles: 'values' },
      { attribute_id: 'a1' },
    );
    expect(await options.delete({ id: 'o1' })).toEqual({
      method: 'deleteAttributeOption',
      req: { attribute_id: 'a1', id: 'o1' },
    });
  });

  it('fails at once, naming the call, on a service that lacks one', () => {
    expect(() =>
      recordClient(echo, wpb.WebhooksServiceService, { one: 'Webhook', many: 'Webhooks', handles: 'codes' }),
    ).toThrow('pim.webhooks.v1.WebhooksService has no BatchGetWebhooks');
  });
});
