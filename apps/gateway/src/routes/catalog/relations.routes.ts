import type { relations as pb } from '@pim/contracts';
import {
  PRODUCT_RELATION_TYPES,
  productRelationListDecl,
  productRelationSchemas,
  type ProductRelationInput,
  type ProductRelationItem,
  type ProductRelationType,
  type ProductRelationView,
} from '@pim/resources';
import type { CatalogClients } from './catalog.clients';
import type { RecordCodec, RecordRouteSpec } from '../../http/resource.routes';

/** Descriptions of the OpenAPI tags the relation routes use. */
export const RELATION_TAG_DESCRIPTIONS: Record<string, string> = {
  'Product relations':
    'Kits, associations and service eligibility of a product: one live relation per product and type, holding the list its type names',
};

/** An item as REST shows it: only the fields its type has. */
const itemOut = (i: pb.ProductRelationItem): ProductRelationItem => ({
  id: i.id,
  ...(i.quantity !== undefined ? { quantity: i.quantity } : {}),
  ...(i.category_tree_id !== undefined ? { category_tree_id: i.category_tree_id } : {}),
});

/** Only the list the type names crosses to REST; every list crosses to gRPC (empty when not given). */
export const productRelationCodec: RecordCodec<
  ProductRelationView,
  pb.ProductRelation,
  pb.ProductRelationInput,
  ProductRelationInput
> = {
  fromMessage: (m) => {
    const type = m.type as ProductRelationType;
    return {
      _id: m.id,
      type,
      product_id: m.product_id,
      [type]: (m[type] ?? []).map(itemOut),
      version: m.version,
      created_at: m.created_at,
      updated_at: m.updated_at,
      ...(m.created_by_name !== undefined ? { created_by_name: m.created_by_name } : {}),
    } as ProductRelationView;
  },
  toInput: (body) =>
    ({
      type: body.type,
      product_id: body.product_id,
      ...Object.fromEntries(PRODUCT_RELATION_TYPES.map((t) => [t, body[t] ?? []])),
    }) as pb.ProductRelationInput,
};

type Declare = <V extends { _id: string; version: number }, M, In, I>(spec: RecordRouteSpec<V, M, In, I>) => void;

/** Declares /product-relations (the six record routes; list filters `product_id`, `type`; `expand=product`). */
export function relationRoutes(declare: Declare, clients: CatalogClients): void {
  declare({
    collection: 'product_relations',
    handle: 'product_id and type',
    searches: 'nothing (no field of a relation is searchable; filter by product_id and type)',
    schemas: productRelationSchemas,
    listDecl: productRelationListDecl,
    client: () => clients.productRelations,
    codec: productRelationCodec,
  });
}
