import { attributes as apb, products as ppb, relations as rpb, taxonomy as pb } from '@pim/contracts';
import { codeNames, collectionInfo } from '@pim/resources';
import type { Client } from '@grpc/grpc-js';
import { createRpcClient, recordClient, type ClientCtor, type RecordClient } from '@pim/rpc';

export type { RecordClient };

/** The catalog app's services as the gateway calls them. */
export interface CatalogClients {
  brands: RecordClient<pb.Brand, pb.BrandInput>;
  categoryTrees: RecordClient<pb.CategoryTree, pb.CategoryTreeInput>;
  categories: RecordClient<pb.Category, pb.CategoryInput>;
  families: RecordClient<pb.Family, pb.FamilyInput>;
  catalogs: RecordClient<pb.Catalog, pb.CatalogInput>;
  attributes: RecordClient<apb.Attribute, apb.AttributeInput>;
  attributeGroups: RecordClient<apb.AttributeGroup, apb.AttributeGroupInput>;
  /** The options of one attribute (every call names it). */
  attributeOptions(attributeId: string): RecordClient<apb.AttributeOption, apb.AttributeOptionInput>;
  products: RecordClient<ppb.Product, ppb.ProductInput>;
  /** Upserts up to 1,000 products (REST-shaped items) by code; one result per item. */
  bulkUpsertProducts(req: { items: Record<string, unknown>[] }): Promise<{ data: ppb.ProductBulkItemResult[] }>;
  /** Handles are keys `<product_id>:<type>`. */
  productRelations: RecordClient<rpb.ProductRelation, rpb.ProductRelationInput>;
  close(): void;
}

/**
 * Clients of the catalog app (one address, ten services; grpc-js shares one connection between
 * them). Every call carries the deadline, request id and caller, and maps errors back.
 */
export function createCatalogClients(opts: { address: string; deadlineMs: number }): CatalogClients {
  const o = { service: 'catalog', ...opts };
  const clients: { close(): void }[] = [];
  /** The record calls of one catalog service, named after its collection (`brands` → CreateBrand, ListBrands…). */
  const records = <M, In, C extends Client = Client>(
    Ctor: ClientCtor<C>,
    definition: Parameters<typeof recordClient>[1],
    collection: string,
    handles: string,
  ) => {
    const client = createRpcClient(Ctor, o);
    clients.push(client);
    const names = { ...codeNames(collectionInfo(collection)), handles };
    return {
      client,
      names,
      of: (scope?: Record<string, string>) => recordClient<M, In>(client, definition, names, scope),
    };
  };
  const options = records<apb.AttributeOption, apb.AttributeOptionInput>(
    apb.AttributeOptionsServiceClient,
    apb.AttributeOptionsServiceService,
    'attribute_options',
    'values',
  );
  const products = records<ppb.Product, ppb.ProductInput, ppb.ProductsServiceClient>(
    ppb.ProductsServiceClient,
    ppb.ProductsServiceService,
    'products',
    'codes',
  );
  return {
    brands: records<pb.Brand, pb.BrandInput>(pb.BrandsServiceClient, pb.BrandsServiceService, 'brands', 'codes').of(),
    categoryTrees: records<pb.CategoryTree, pb.CategoryTreeInput>(
      pb.CategoryTreesServiceClient,
      pb.CategoryTreesServiceService,
      'category_trees',
      'codes',
    ).of(),
    categories: records<pb.Category, pb.CategoryInput>(
      pb.CategoriesServiceClient,
      pb.CategoriesServiceService,
      'categories',
      'codes',
    ).of(),
    families: records<pb.Family, pb.FamilyInput>(
      pb.FamiliesServiceClient,
      pb.FamiliesServiceService,
      'families',
      'codes',
    ).of(),
    catalogs: records<pb.Catalog, pb.CatalogInput>(
      pb.CatalogsServiceClient,
      pb.CatalogsServiceService,
      'catalogs',
      'codes',
    ).of(),
    attributes: records<apb.Attribute, apb.AttributeInput>(
      apb.AttributesServiceClient,
      apb.AttributesServiceService,
      'attributes',
      'keys',
    ).of(),
    attributeGroups: records<apb.AttributeGroup, apb.AttributeGroupInput>(
      apb.AttributeGroupsServiceClient,
      apb.AttributeGroupsServiceService,
      'attribute_groups',
      'keys',
    ).of(),
    attributeOptions: (attribute_id) => options.of({ attribute_id }),
    products: products.of(),
    // One JSON array instead of 1,000 Structs: far cheaper to encode here and decode there.
    bulkUpsertProducts: (r) =>
      products.client.bulkUpsertProducts({ items: [], items_json: Buffer.from(JSON.stringify(r.items), 'utf8') }),
    productRelations: records<rpb.ProductRelation, rpb.ProductRelationInput>(
      rpb.ProductRelationsServiceClient,
      rpb.ProductRelationsServiceService,
      'product_relations',
      'keys',
    ).of(),
    close() {
      for (const c of clients) c.close();
    },
  };
}
