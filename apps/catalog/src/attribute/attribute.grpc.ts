import { attributes as pb } from '@pim/contracts';
import type { Logger } from '@pim/logging';
import type { AttributeInput, AttributeView } from '@pim/resources';
import type { ServiceRegistration } from '@pim/rpc';
import { idsIn, idsOut, recordHandlers, viewToMessage, type MessageCodec } from '@pim/records';
import type { RecordService } from '@pim/records';
import type { AttributeEntity } from '../entities/attribute.entity';

/** Links carry `_id` in REST and `id` in protos; type_config travels as a Struct. */
const attributeCodec: MessageCodec<AttributeView, pb.Attribute, pb.AttributeInput> = {
  toMessage: (view) => ({ ...viewToMessage(view), groups: idsOut(view.groups), categories: idsOut(view.categories) }),
  fromInput: (input) => ({ ...(input ?? {}), groups: idsIn(input?.groups), categories: idsIn(input?.categories) }),
};

/** gRPC handlers of pim.catalog.v1.AttributesService. */
export function attributesGrpc(
  service: RecordService<AttributeEntity, AttributeView, AttributeInput>,
  logger: Logger,
): ServiceRegistration {
  const h = recordHandlers(
    service,
    attributeCodec,
    logger,
    { one: 'Attribute', many: 'Attributes' },
    (req: pb.BatchGetAttributesRequest) => req.keys ?? [],
  );
  const implementation: pb.AttributesServiceServer = {
    createAttribute: h.create,
    getAttribute: h.get,
    updateAttribute: h.update,
    patchAttribute: h.patch,
    deleteAttribute: h.delete,
    listAttributes: h.list,
    batchGetAttributes: h.batchGet,
  };
  return { name: 'pim.catalog.v1.AttributesService', definition: pb.AttributesServiceService, implementation };
}
