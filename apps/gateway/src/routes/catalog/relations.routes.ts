import type { relations as pb } from '@pim/contracts';
import {
  PRODUCT_RELATION_TYPES,
  ProductRelation,
  productRelationListDecl,
  productRelationSchemas,
  type ProductRelationInput,
  type ProductRelationItem,
  type ProductRelationView,
} from '@pim/resources';
import type { CatalogClients } from './catalog.clients';
import type { RecordCodec, RecordRouteSpec } from '../../http/resource.routes';
import { declaredCodec } from '../../http/declared.codec';

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

/** Each list's items as REST shows them (only the fields of its type); empty lists are absent from the view. */
export const productRelationCodec: RecordCodec<
  ProductRelationView,
  pb.ProductRelation,
  pb.ProductRelationInput,
  ProductRelationInput
> = declaredCodec(ProductRelation, {
  fromMessage: Object.fromEntries(
    PRODUCT_RELATION_TYPES.map((t) => [t, (items: unknown) => (items as pb.ProductRelationItem[]).map(itemOut)]),
  ),
});

type Declare = <V extends { _id: string; version: number }, M, In, I>(spec: RecordRouteSpec<V, M, In, I>) => void;

/** Declares /product-relations (the six record routes; list filters `product_id`, `type`; `expand=product`). */
export function relationRoutes(declare: Declare, clients: CatalogClients): void {
  declare({
    collection: 'product_relations',
    handle: 'product_id and type',
    searches: 'nothing (no field of a relation is searchable; filter by product_id and type)',
    createDescription:
      'The product_id and type must be free among live relations (409 otherwise). For a key whose users groups do not see every product, a product_id naming no product they see is a 404, whether or not it exists (docs/decisions/access.md).',
    createErrors: [404],
    schemas: productRelationSchemas,
    listDecl: productRelationListDecl,
    client: () => clients.productRelations,
    codec: productRelationCodec,
  });
}
