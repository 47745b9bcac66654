import { CATALOG_STORE } from './catalog.records';
import type { DataSource } from 'typeorm';
import type { Logger } from '@pim/logging';
import type { ServiceRegistration } from '@pim/rpc';
import { RecordService } from '@pim/records';
import { ProductBulkUpsert } from './product/product.bulk';
import { ProductsDescriber } from './product/product.describe';
import { ProductPublishments } from './product/product.publishments';
import { productResource } from './product/product.resource';
import { productsGrpc as productsServiceGrpc } from './product/product.grpc';
import { ProductChanges } from './product-changes/product-changes.service';
import { productRelationResource } from './relation/relation.resource';
import { visibleProductIds } from './access/product-sight';

/**
 * The products service, its bulk upsert, its description, the application of approved changes and
 * which products the caller sees, over one DataSource.
 */
export function productServices(ds: DataSource) {
  const products = new RecordService(ds, productResource, CATALOG_STORE);
  const relations = new RecordService(ds, productRelationResource, CATALOG_STORE);
  return {
    products,
    productBulk: new ProductBulkUpsert(ds, products),
    productsDescriber: new ProductsDescriber(ds, products),
    productChanges: new ProductChanges(ds, products, relations),
    productPublishments: new ProductPublishments(products),
    visibleProducts: (ids: string[]) => visibleProductIds(ds.manager, ids),
  };
}

/** The product services of one DataSource. */
export type ProductServices = ReturnType<typeof productServices>;

/** Their gRPC service (pim.catalog.v1.ProductsService), ready for GrpcApp. */
export function productsGrpc(services: ProductServices, logger: Logger): ServiceRegistration[] {
  return [
    productsServiceGrpc(
      services.products,
      services.productBulk,
      services.productsDescriber,
      services.productChanges,
      services.productPublishments,
      services.visibleProducts,
      logger,
    ),
  ];
}
