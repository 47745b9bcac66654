import { relations as pb } from '@pim/contracts';
import type { Logger } from '@pim/logging';
import { PRODUCT_RELATION_TYPES, type ProductRelationInput, type ProductRelationView } from '@pim/resources';
import type { ServiceRegistration } from '@pim/rpc';
import { recordHandlers, viewToMessage, type MessageCodec } from '@pim/records';
import type { RecordService } from '@pim/records';
import type { ProductRelationEntity } from '../entities/relation.entity';

const noLists = () => Object.fromEntries(PRODUCT_RELATION_TYPES.map((t) => [t, []]));

/** Lists travel as repeated fields (empty when absent); the input keeps only the lists given. */
const relationCodec: MessageCodec<ProductRelationView, pb.ProductRelation, pb.ProductRelationInput> = {
  toMessage: (view) => ({ ...noLists(), ...viewToMessage(view) }) as unknown as pb.ProductRelation,
  fromInput: (input) => {
    // Decoded items carry every proto field; the REST shape has only those set.
    const plain = (items: pb.ProductRelationItem[]) =>
      items.map((i) => Object.fromEntries(Object.entries(i).filter(([, v]) => v !== undefined)));
    const lists = Object.fromEntries(
      PRODUCT_RELATION_TYPES.flatMap((t) => ((input?.[t]?.length ?? 0) > 0 ? [[t, plain(input![t])]] : [])),
    );
    return { type: input?.type, product_id: input?.product_id, ...lists };
  },
};

/** gRPC handlers of pim.catalog.v1.ProductRelationsService. */
export function productRelationsGrpc(
  service: RecordService<ProductRelationEntity, ProductRelationView, ProductRelationInput>,
  logger: Logger,
): ServiceRegistration {
  const h = recordHandlers(
    service,
    relationCodec,
    logger,
    { one: 'ProductRelation', many: 'ProductRelations' },
    (req: pb.BatchGetProductRelationsRequest) => req.keys ?? [],
  );
  const implementation: pb.ProductRelationsServiceServer = {
    createProductRelation: h.create,
    getProductRelation: h.get,
    updateProductRelation: h.update,
    patchProductRelation: h.patch,
    deleteProductRelation: h.delete,
    listProductRelations: h.list,
    batchGetProductRelations: h.batchGet,
    scanProductRelations: h.scan,
  };
  return {
    name: 'pim.catalog.v1.ProductRelationsService',
    definition: pb.ProductRelationsServiceService,
    implementation,
  };
}
