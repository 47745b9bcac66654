import { CATALOG_STORE } from './catalog.records';
import type { DataSource } from 'typeorm';
import type { Logger } from '@pim/logging';
import type { ServiceRegistration } from '@pim/rpc';
import { RecordService } from '@pim/records';
import { productRelationResource } from './relation/relation.resource';
import { productRelationsGrpc as relationsServiceGrpc } from './relation/relation.grpc';

/** The product relations service over one DataSource. */
export function relationServices(ds: DataSource) {
  return { productRelations: new RecordService(ds, productRelationResource, CATALOG_STORE) };
}

/** The relation services of one DataSource. */
export type RelationServices = ReturnType<typeof relationServices>;

/** Their gRPC service (pim.catalog.v1.ProductRelationsService), ready for GrpcApp. */
export function relationsGrpc(services: RelationServices, logger: Logger): ServiceRegistration[] {
  return [relationsServiceGrpc(services.productRelations, logger)];
}
