import { taxonomy as pb } from '@pim/contracts';
import type { Logger } from '@pim/logging';
import type { BrandView, TaxonomyInput } from '@pim/resources';
import type { ServiceRegistration } from '@pim/rpc';
import { type RecordService, mirrorCodec, recordHandlers } from '@pim/records';
import type { BrandEntity } from '../entities/brand.entity';

/** gRPC handlers of pim.catalog.v1.BrandsService. */
export function brandsGrpc(
  service: RecordService<BrandEntity, BrandView, TaxonomyInput>,
  logger: Logger,
): ServiceRegistration {
  const h = recordHandlers(
    service,
    mirrorCodec<BrandView, pb.Brand, pb.BrandInput>(),
    logger,
    { one: 'Brand', many: 'Brands' },
    (req: pb.BatchGetBrandsRequest) => req.codes ?? [],
  );
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
