import { taxonomy as pb } from '@pim/contracts';
import type { Logger } from '@pim/logging';
import type { CategoryTreeView } from '@pim/resources';
import type { ServiceRegistration } from '@pim/rpc';
import { mirrorCodec } from '../record/record.grpc';
import { taxonomyHandlers } from '../taxonomy/taxonomy.grpc';
import type { TaxonomyService } from '../taxonomy/taxonomy.service';
import type { CategoryTreeEntity } from './category-tree.entity';

/** gRPC handlers of pim.catalog.v1.CategoryTreesService. */
export function categoryTreesGrpc(
  service: TaxonomyService<CategoryTreeEntity, CategoryTreeView>,
  logger: Logger,
): ServiceRegistration {
  const h = taxonomyHandlers(service, mirrorCodec<CategoryTreeView, pb.CategoryTree, pb.CategoryTreeInput>(), logger, {
    one: 'CategoryTree',
    many: 'CategoryTrees',
  });
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
