import { taxonomy as pb } from '@pim/contracts';
import type { Logger } from '@pim/logging';
import type { CatalogInput, CatalogView } from '@pim/resources';
import type { ServiceRegistration } from '@pim/rpc';
import { mirrorCodec } from '../record/record.grpc';
import { taxonomyHandlers } from '../taxonomy/taxonomy.grpc';
import type { TaxonomyService } from '../taxonomy/taxonomy.service';
import type { CatalogEntity } from './catalog.entity';

/** gRPC handlers of pim.catalog.v1.CatalogsService. */
export function catalogsGrpc(
  service: TaxonomyService<CatalogEntity, CatalogView, CatalogInput>,
  logger: Logger,
): ServiceRegistration {
  const h = taxonomyHandlers(service, mirrorCodec<CatalogView, pb.Catalog, pb.CatalogInput>(), logger, {
    one: 'Catalog',
    many: 'Catalogs',
  });
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
