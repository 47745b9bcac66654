import type { DataSource } from 'typeorm';
import type { Logger } from '@pim/logging';
import type { ServiceRegistration } from '@pim/rpc';
import { brandResource } from './brand/brand.resource';
import { brandsGrpc } from './brand/brand.grpc';
import { categoryTreeResource } from './category-tree/category-tree.resource';
import { categoryTreesGrpc } from './category-tree/category-tree.grpc';
import { categoryResource } from './category/category.resource';
import { categoriesGrpc } from './category/category.grpc';
import { familyResource } from './family/family.resource';
import { familiesGrpc } from './family/family.grpc';
import { catalogResource } from './catalog/catalog.resource';
import { catalogsGrpc } from './catalog/catalog.grpc';
import { RecordService } from '@pim/records';
import { CATALOG_STORE } from './catalog.records';
import type { UsersGroupsDirectory } from './links/users-groups.directory';

/** The five taxonomy services over one DataSource; catalogs check their users groups in `directory`. */
export function taxonomyServices(ds: DataSource, directory: UsersGroupsDirectory) {
  return {
    brands: new RecordService(ds, brandResource, CATALOG_STORE),
    categoryTrees: new RecordService(ds, categoryTreeResource, CATALOG_STORE),
    categories: new RecordService(ds, categoryResource, CATALOG_STORE),
    families: new RecordService(ds, familyResource, CATALOG_STORE),
    catalogs: new RecordService(ds, catalogResource(directory), CATALOG_STORE),
  };
}

/** The taxonomy services of one DataSource, by resource. */
export type TaxonomyServices = ReturnType<typeof taxonomyServices>;

/** Their gRPC services (pim.catalog.v1), ready for GrpcApp. */
export function taxonomyGrpc(services: TaxonomyServices, logger: Logger): ServiceRegistration[] {
  return [
    brandsGrpc(services.brands, logger),
    categoryTreesGrpc(services.categoryTrees, logger),
    categoriesGrpc(services.categories, logger),
    familiesGrpc(services.families, logger),
    catalogsGrpc(services.catalogs, logger),
  ];
}
