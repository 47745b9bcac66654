import { Api } from '../../http/route';
import { buildDocument, createRegistry } from '../../document';
import type { CatalogClients } from './catalog.clients';
import { catalogRoutes } from './catalog.routes';

// The OpenAPI document is built with stand-in dependencies that throw when touched.
const untouchable = new Proxy(
  {},
  {
    get: (_t, prop) => {
      throw new Error(`catalog.${String(prop)} touched while declaring routes`);
    },
  },
) as CatalogClients;

const RESOURCES = 10;
/** Six per resource, and POST /products/bulk. */
const ROUTES = RESOURCES * 6 + 1;

describe('catalog routes declaration', () => {
  const api = new Api(createRegistry(), '/api/v1');
  catalogRoutes(api, untouchable, { maxLimit: 100, defaultLimit: 25 });

  it('declares the six routes of each resource without touching a client', () => {
    expect(api.declared).toHaveLength(ROUTES);
    const byPath = (p: string) =>
      api.declared
        .filter((d) => d.path.startsWith(`/api/v1/${p}`))
        .map((d) => `${d.method} ${d.path}`)
        .sort();
    expect(byPath('category-trees')).toEqual([
      'delete /api/v1/category-trees/:id',
      'get /api/v1/category-trees',
      'get /api/v1/category-trees/:id',
      'patch /api/v1/category-trees/:id',
      'post /api/v1/category-trees',
      'put /api/v1/category-trees/:id',
    ]);
    expect(byPath('attributes/:id/options')).toEqual([
      'delete /api/v1/attributes/:id/options/:optionId',
      'get /api/v1/attributes/:id/options',
      'get /api/v1/attributes/:id/options/:optionId',
      'patch /api/v1/attributes/:id/options/:optionId',
      'post /api/v1/attributes/:id/options',
      'put /api/v1/attributes/:id/options/:optionId',
    ]);
    expect(byPath('products')).toEqual([
      'delete /api/v1/products/:id',
      'get /api/v1/products',
      'get /api/v1/products/:id',
      'patch /api/v1/products/:id',
      'post /api/v1/products',
      'post /api/v1/products/bulk',
      'put /api/v1/products/:id',
    ]);
  });

  it('needs <collection>:read for GETs and <collection>:write for writes', () => {
    const collection: Record<string, string> = {
      brands: 'brands',
      'category-trees': 'category_trees',
      categories: 'categories',
      families: 'families',
      catalogs: 'catalogs',
      attributes: 'attributes',
      'attribute-groups': 'attribute_groups',
      products: 'products',
      'product-relations': 'product_relations',
    };
    for (const d of api.declared) {
      const c = d.path.includes('/options') ? 'attribute_options' : collection[d.path.split('/')[3]];
      expect(d.scope).toBe(`${c}:${d.method === 'get' ? 'read' : 'write'}`);
    }
  });

  it('gives every operation a unique id in the document', () => {
    const registry = createRegistry();
    catalogRoutes(new Api(registry, '/api/v1'), untouchable, { maxLimit: 100, defaultLimit: 25 });
    const ops = Object.values(buildDocument(registry).paths ?? {}).flatMap((item) =>
      Object.values(item as Record<string, { operationId: string }>).map((o) => o.operationId),
    );
    expect(ops).toHaveLength(ROUTES);
    expect(new Set(ops).size).toBe(ROUTES);
    expect(ops).toEqual(
      expect.arrayContaining([
        'createCategoryTree',
        'listCategories',
        'patchFamily',
        'deleteCatalog',
        'replaceBrand',
        'listAttributeOptions',
        'getAttributeGroup',
        'patchAttribute',
        'listProducts',
        'bulkUpsertProducts',
      ]),
    );
  });
});
