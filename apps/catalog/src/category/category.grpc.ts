import { taxonomy as pb } from '@pim/contracts';
import type { Logger } from '@pim/logging';
import type { CategoryInput, CategoryView } from '@pim/resources';
import type { ServiceRegistration } from '@pim/rpc';
import { type RecordService, mirrorCodec, recordHandlers } from '@pim/records';
import type { CategoryEntity } from '../entities/category.entity';

/** gRPC handlers of pim.catalog.v1.CategoriesService. */
export function categoriesGrpc(
  service: RecordService<CategoryEntity, CategoryView, CategoryInput>,
  logger: Logger,
): ServiceRegistration {
  const h = recordHandlers(
    service,
    mirrorCodec<CategoryView, pb.Category, pb.CategoryInput>(),
    logger,
    { one: 'Category', many: 'Categories' },
    (req: pb.BatchGetCategoriesRequest) => req.codes ?? [],
  );
  const implementation: pb.CategoriesServiceServer = {
    createCategory: h.create,
    getCategory: h.get,
    updateCategory: h.update,
    patchCategory: h.patch,
    deleteCategory: h.delete,
    listCategories: h.list,
    batchGetCategories: h.batchGet,
  };
  return { name: 'pim.catalog.v1.CategoriesService', definition: pb.CategoriesServiceService, implementation };
}
