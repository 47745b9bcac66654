import { taxonomy as pb } from '@pim/contracts';
import type { Logger } from '@pim/logging';
import type { BrandView } from '@pim/resources';
import type { ServiceRegistration } from '@pim/rpc';
import { mirrorCodec } from '../record/record.grpc';
import { taxonomyHandlers } from '../taxonomy/taxonomy.grpc';
import type { TaxonomyService } from '../taxonomy/taxonomy.service';
import type { BrandEntity } from './brand.entity';

/** gRPC handlers of pim.catalog.v1.BrandsService. */
export function brandsGrpc(service: TaxonomyService<BrandEntity, BrandView>, logger: Logger): ServiceRegistration {
  const h = taxonomyHandlers(service, mirrorCodec<BrandView, pb.Brand, pb.BrandInput>(), logger, {
    one: 'Brand',
    many: 'Brands',
  });
  const implementation: pb.BrandsServiceServer = {
    createBrand: h.create,
    getBrand: h.get,
    updateBrand: h.update,
    patchBrand: h.patch,
    deleteBrand: h.delete,
    listBrands: h.list,
    batchGetBrands: h.batchGet,
  };
  return { name: 'pim.catalog.v1.BrandsService', definition: pb.BrandsServiceService, implementation };
}
