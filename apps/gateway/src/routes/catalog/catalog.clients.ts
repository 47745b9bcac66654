import { taxonomy as pb, type common } from '@pim/contracts';
import { createRpcClient } from '@pim/rpc';

/** The seven calls every taxonomy resource answers, whatever its generated client names them. */
export interface TaxonomyClient<M, In> {
  create(req: { input: In }): Promise<{ data?: M }>;
  get(req: { id: string }): Promise<{ data?: M }>;
  update(req: { id: string; input: In; expected_version?: number }): Promise<{ data?: M }>;
  patch(req: { id: string; patch: Record<string, unknown>; expected_version?: number }): Promise<{ data?: M }>;
  delete(req: { id: string; expected_version?: number }): Promise<{ data?: M }>;
  list(req: { query: common.ListQuery }): Promise<{ data: M[]; page_info?: common.PageInfo }>;
  batchGet(req: { ids: string[]; codes: string[] }): Promise<{ data: M[] }>;
}

/** The catalog app's taxonomy services as the gateway calls them. */
export interface CatalogClients {
  brands: TaxonomyClient<pb.Brand, pb.BrandInput>;
  categoryTrees: TaxonomyClient<pb.CategoryTree, pb.CategoryTreeInput>;
  categories: TaxonomyClient<pb.Category, pb.CategoryInput>;
  families: TaxonomyClient<pb.Family, pb.FamilyInput>;
  catalogs: TaxonomyClient<pb.Catalog, pb.CatalogInput>;
  close(): void;
}

/**
 * Clients of the catalog app (one address, five services; grpc-js shares one connection between
 * them). Every call carries the deadline, request id and caller, and maps errors back.
 */
export function createCatalogClients(opts: { address: string; deadlineMs: number }): CatalogClients {
  const o = { service: 'catalog', ...opts };
  const brands = createRpcClient(pb.BrandsServiceClient, o);
  const trees = createRpcClient(pb.CategoryTreesServiceClient, o);
  const categories = createRpcClient(pb.CategoriesServiceClient, o);
  const families = createRpcClient(pb.FamiliesServiceClient, o);
  const catalogs = createRpcClient(pb.CatalogsServiceClient, o);
  return {
    brands: {
      create: (r) => brands.createBrand(r),
      get: (r) => brands.getBrand(r),
      update: (r) => brands.updateBrand(r),
      patch: (r) => brands.patchBrand(r),
      delete: (r) => brands.deleteBrand(r),
      list: (r) => brands.listBrands(r),
      batchGet: (r) => brands.batchGetBrands(r),
    },
    categoryTrees: {
      create: (r) => trees.createCategoryTree(r),
      get: (r) => trees.getCategoryTree(r),
      update: (r) => trees.updateCategoryTree(r),
      patch: (r) => trees.patchCategoryTree(r),
      delete: (r) => trees.deleteCategoryTree(r),
      list: (r) => trees.listCategoryTrees(r),
      batchGet: (r) => trees.batchGetCategoryTrees(r),
    },
    categories: {
      create: (r) => categories.createCategory(r),
      get: (r) => categories.getCategory(r),
      update: (r) => categories.updateCategory(r),
      patch: (r) => categories.patchCategory(r),
      delete: (r) => categories.deleteCategory(r),
      list: (r) => categories.listCategories(r),
      batchGet: (r) => categories.batchGetCategories(r),
    },
    families: {
      create: (r) => families.createFamily(r),
      get: (r) => families.getFamily(r),
      update: (r) => families.updateFamily(r),
      patch: (r) => families.patchFamily(r),
      delete: (r) => families.deleteFamily(r),
      list: (r) => families.listFamilies(r),
      batchGet: (r) => families.batchGetFamilies(r),
    },
    catalogs: {
      create: (r) => catalogs.createCatalog(r),
      get: (r) => catalogs.getCatalog(r),
      update: (r) => catalogs.updateCatalog(r),
      patch: (r) => catalogs.patchCatalog(r),
      delete: (r) => catalogs.deleteCatalog(r),
      list: (r) => catalogs.listCatalogs(r),
      batchGet: (r) => catalogs.batchGetCatalogs(r),
    },
    close() {
      for (const c of [brands, trees, categories, families, catalogs]) c.close();
    },
  };
}
