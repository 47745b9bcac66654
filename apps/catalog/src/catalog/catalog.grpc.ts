import { taxonomy as pb } from '@pim/contracts';
import type { Logger } from '@pim/logging';
import type { CatalogInput, CatalogView } from '@pim/resources';
import type { ServiceRegistration } from '@pim/rpc';
import { type RecordService, mirrorCodec, recordHandlers } from '@pim/records';
import type { CatalogEntity } from '../entities/catalog.entity';

/** gRPC handlers of pim.catalog.v1.CatalogsService. */
export function catalogsGrpc(
  service: RecordService<CatalogEntity, CatalogView, CatalogInput>,
  logger: Logger,
): ServiceRegistration {
  const h = recordHandlers(
    service,
    mirrorCodec<CatalogView, pb.Catalog, pb.CatalogInput>(),
    logger,
    { one: 'Catalog', many: 'Catalogs' },
    (req: pb.BatchGetCatalogsRequest) => req.codes ?? [],
  );
  const implementation: pb.CatalogsServiceServer = {
    createCatalog: h.create,
    getCatalog: h.get,
    updateCatalog: h.update,
    patchCatalog: h.patch,
    deleteCatalog: h.delete,
    listCatalogs: h.list,
    batchGetCatalogs: h.batchGet,
  };
  return { name: 'pim.catalog.v1.CatalogsService', definition: pb.CatalogsServiceService, implementation };
}
