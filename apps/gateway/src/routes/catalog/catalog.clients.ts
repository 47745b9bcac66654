import { attributes as apb, products as ppb, relations as rpb, taxonomy as pb } from '@pim/contracts';
import { createRpcClient } from '@pim/rpc';
import type { RecordClient } from '../../http/record.client';

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
  const brands = createRpcClient(pb.BrandsServiceClient, o);
  const trees = createRpcClient(pb.CategoryTreesServiceClient, o);
  const categories = createRpcClient(pb.CategoriesServiceClient, o);
  const families = createRpcClient(pb.FamiliesServiceClient, o);
  const catalogs = createRpcClient(pb.CatalogsServiceClient, o);
  const attributes = createRpcClient(apb.AttributesServiceClient, o);
  const groups = createRpcClient(apb.AttributeGroupsServiceClient, o);
  const options = createRpcClient(apb.AttributeOptionsServiceClient, o);
  const products = createRpcClient(ppb.ProductsServiceClient, o);
  const relations = createRpcClient(rpb.ProductRelationsServiceClient, o);
  return {
    brands: {
      create: (r) => brands.createBrand(r),
      get: (r) => brands.getBrand(r),
      update: (r) => brands.updateBrand(r),
      patch: (r) => brands.patchBrand(r),
      delete: (r) => brands.deleteBrand(r),
      list: (r) => brands.listBrands(r),
      batchGet: (r) => brands.batchGetBrands({ ids: r.ids, codes: r.handles }),
    },
    categoryTrees: {
      create: (r) => trees.createCategoryTree(r),
      get: (r) => trees.getCategoryTree(r),
      update: (r) => trees.updateCategoryTree(r),
      patch: (r) => trees.patchCategoryTree(r),
      delete: (r) => trees.deleteCategoryTree(r),
      list: (r) => trees.listCategoryTrees(r),
      batchGet: (r) => trees.batchGetCategoryTrees({ ids: r.ids, codes: r.handles }),
    },
    categories: {
      create: (r) => categories.createCategory(r),
      get: (r) => categories.getCategory(r),
      update: (r) => categories.updateCategory(r),
      patch: (r) => categories.patchCategory(r),
      delete: (r) => categories.deleteCategory(r),
      list: (r) => categories.listCategories(r),
      batchGet: (r) => categories.batchGetCategories({ ids: r.ids, codes: r.handles }),
    },
    families: {
      create: (r) => families.createFamily(r),
      get: (r) => families.getFamily(r),
      update: (r) => families.updateFamily(r),
      patch: (r) => families.patchFamily(r),
      delete: (r) => families.deleteFamily(r),
      list: (r) => families.listFamilies(r),
      batchGet: (r) => families.batchGetFamilies({ ids: r.ids, codes: r.handles }),
    },
    catalogs: {
      create: (r) => catalogs.createCatalog(r),
      get: (r) => catalogs.getCatalog(r),
      update: (r) => catalogs.updateCatalog(r),
      patch: (r) => catalogs.patchCatalog(r),
      delete: (r) => catalogs.deleteCatalog(r),
      list: (r) => catalogs.listCatalogs(r),
      batchGet: (r) => catalogs.batchGetCatalogs({ ids: r.ids, codes: r.handles }),
    },
    attributes: {
      create: (r) => attributes.createAttribute(r),
      get: (r) => attributes.getAttribute(r),
      update: (r) => attributes.updateAttribute(r),
      patch: (r) => attributes.patchAttribute(r),
      delete: (r) => attributes.deleteAttribute(r),
      list: (r) => attributes.listAttributes(r),
      batchGet: (r) => attributes.batchGetAttributes({ ids: r.ids, keys: r.handles }),
    },
    attributeGroups: {
      create: (r) => groups.createAttributeGroup(r),
      get: (r) => groups.getAttributeGroup(r),
      update: (r) => groups.updateAttributeGroup(r),
      patch: (r) => groups.patchAttributeGroup(r),
      delete: (r) => groups.deleteAttributeGroup(r),
      list: (r) => groups.listAttributeGroups(r),
      batchGet: (r) => groups.batchGetAttributeGroups({ ids: r.ids, keys: r.handles }),
    },
    attributeOptions: (attribute_id) => ({
      create: (r) => options.createAttributeOption({ attribute_id, ...r }),
      get: (r) => options.getAttributeOption({ attribute_id, ...r }),
      update: (r) => options.updateAttributeOption({ attribute_id, ...r }),
      patch: (r) => options.patchAttributeOption({ attribute_id, ...r }),
      delete: (r) => options.deleteAttributeOption({ attribute_id, ...r }),
      list: (r) => options.listAttributeOptions({ attribute_id, ...r }),
      batchGet: (r) => options.batchGetAttributeOptions({ ids: r.ids, attribute_id, values: r.handles }),
    }),
    products: {
      create: (r) => products.createProduct(r),
      get: (r) => products.getProduct(r),
      getJson: (r) => products.getProductJson(r),
      listJson: (r) => products.listProductsJson(r),
      update: (r) => products.updateProduct(r),
      patch: (r) => products.patchProduct(r),
      delete: (r) => products.deleteProduct(r),
      list: (r) => products.listProducts(r),
      batchGet: (r) => products.batchGetProducts({ ids: r.ids, codes: r.handles }),
    },
    // One JSON array instead of 1,000 Structs: far cheaper to encode here and decode there.
    bulkUpsertProducts: (r) =>
      products.bulkUpsertProducts({ items: [], items_json: Buffer.from(JSON.stringify(r.items), 'utf8') }),
    productRelations: {
      create: (r) => relations.createProductRelation(r),
      get: (r) => relations.getProductRelation(r),
      update: (r) => relations.updateProductRelation(r),
      patch: (r) => relations.patchProductRelation(r),
      delete: (r) => relations.deleteProductRelation(r),
      list: (r) => relations.listProductRelations(r),
      batchGet: (r) => relations.batchGetProductRelations({ ids: r.ids, keys: r.handles }),
    },
    close() {
      for (const c of [brands, trees, categories, families, catalogs, attributes, groups, options, products, relations])
        c.close();
    },
  };
}
