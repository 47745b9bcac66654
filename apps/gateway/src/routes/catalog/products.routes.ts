import { writtenErrorObject, type WireErrorObject } from '@pim/errors';
import { apiLinkWriter } from '../../openapi/links';
import { productBulkSchemas, productListDecl, productSchemas, type BulkItemResult } from '@pim/resources';
import type { Api } from '../../http/route';
import type { CatalogClients } from './catalog.clients';
import type { RecordRouteSpec } from '../../http/resource.routes';
import { productCodec } from './products.codecs';

/** Descriptions of the OpenAPI tags the product routes use. */
export const PRODUCT_TAG_DESCRIPTIONS: Record<string, string> = {
  Products:
    "Products with typed attribute values checked against the attributes that apply (groups, categories, family), snapshots and completeness. An API key bound to a user sees only the products of the catalogs the user's users groups may see (every product in a group with has_full_product_access): others are absent from lists and totals and answer 404 by id; a write that would leave a product in no catalog the user sees is a 403. Attributes of an attribute group that lists the user in not_allowed_users are not shown to them and writing them is a 403.",
};

type Declare = <V extends { _id: string; version: number }, M, In, I>(spec: RecordRouteSpec<V, M, In, I>) => void;

/**
 * Declares /products (the six record routes) and POST /products/bulk. The bulk route passes
 * each item to the catalog as given: items are checked there one by one, so a bad item fails
 * alone instead of failing the request.
 */
export function productRoutes(api: Api, declare: Declare, clients: CatalogClients): void {
  declare({
    collection: 'products',
    schemas: productSchemas,
    listDecl: productListDecl,
    nestedFilters: 'attributes.',
    links: { catalogs: 'catalog' },
    searches:
      "code and every language of name; `attributes.<key>=v` (and `_ne`, `_in`, `_nin`, `_exists`, `_gt/_gte/_lt/_lte` on number, date and datetime attributes) filter on attribute values by the attribute's type; `catalog_id=<id>` (and `_in`, `_ne`, `_nin`, `_exists`) on the catalogs a product is in; a filter naming an attribute hidden from your user (an attribute group lists you among its not_allowed_users) is refused with 403",
    client: () => clients.products,
    codec: productCodec,
  });

  api.route({
    method: 'post',
    path: '/products/bulk',
    operationId: 'bulkUpsertProducts',
    scope: 'products:write',
    summary: 'Upsert up to 1,000 products by code',
    description:
      "Each item is a product input, created when no live product has its code and replaced otherwise. Every item is checked on its own: the answer has one result per item (`created`, `updated`, `unchanged` when the item holds exactly what is stored — nothing is written — or `failed` with its error object), and one bad item never fails the others. With a key bound to a user, an item naming a product outside the user's catalogs fails with a 409 and one that would leave the product outside them with a 403. One event per product written.",
    tags: ['Products'],
    body: productBulkSchemas.body,
    responses: { 200: { description: 'One result per item, in the order given', schema: productBulkSchemas.result } },
    handler: async ({ body }) => {
      const r = await clients.bulkUpsertProducts({ items: body.items });
      const data: BulkItemResult[] = r.data.map(({ id, error, ...rest }) => ({
        ...rest,
        ...(id !== undefined ? { _id: id } : {}),
        status: rest.status as BulkItemResult['status'],
        ...(error !== undefined
          ? { error: writtenErrorObject(error as WireErrorObject, apiLinkWriter) as BulkItemResult['error'] }
          : {}),
      }));
      return { status: 200, body: { data } };
    },
  });
}
