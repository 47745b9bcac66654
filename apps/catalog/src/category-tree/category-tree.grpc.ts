import { taxonomy as pb } from '@pim/contracts';
import type { Logger } from '@pim/logging';
import type { CategoryTreeView, TaxonomyInput } from '@pim/resources';
import type { ServiceRegistration } from '@pim/rpc';
import { type RecordService, mirrorCodec, recordHandlers } from '@pim/records';
import type { CategoryTreeEntity } from '../entities/category-tree.entity';

/** gRPC handlers of pim.catalog.v1.CategoryTreesService. */
export function categoryTreesGrpc(
  service: RecordService<CategoryTreeEntity, CategoryTreeView, TaxonomyInput>,
  logger: Logger,
): ServiceRegistration {
  const h = recordHandlers(
    service,
    mirrorCodec<CategoryTreeView, pb.CategoryTree, pb.CategoryTreeInput>(),
    logger,
    { one: 'CategoryTree', many: 'CategoryTrees' },
    (req: pb.BatchGetCategoryTreesRequest) => req.codes ?? [],
  );
  const implementation: pb.CategoryTreesServiceServer = {
    createCategoryTree: h.create,
    getCategoryTree: h.get,
    updateCategoryTree: h.update,
    patchCategoryTree: h.patch,
    deleteCategoryTree: h.delete,
    listCategoryTrees: h.list,
    batchGetCategoryTrees: h.batchGet,
  };
  return { name: 'pim.catalog.v1.CategoryTreesService', definition: pb.CategoryTreesServiceService, implementation };
}
