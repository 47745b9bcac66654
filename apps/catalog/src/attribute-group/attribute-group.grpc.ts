import { attributes as pb } from '@pim/contracts';
import type { Logger } from '@pim/logging';
import type { AttributeGroupInput, AttributeGroupView } from '@pim/resources';
import type { ServiceRegistration } from '@pim/rpc';
import { idsIn, idsOut, recordHandlers, viewToMessage, type MessageCodec } from '@pim/records';
import type { RecordService } from '@pim/records';
import type { AttributeGroupEntity } from '../entities/attribute-group.entity';

/** Users groups carry `_id` in REST and `id` in protos. */
const attributeGroupCodec: MessageCodec<AttributeGroupView, pb.AttributeGroup, pb.AttributeGroupInput> = {
  toMessage: (view) => ({ ...viewToMessage(view), users_groups: idsOut(view.users_groups) }),
  fromInput: (input) => ({ ...(input ?? {}), users_groups: idsIn(input?.users_groups) }),
};

/** gRPC handlers of pim.catalog.v1.AttributeGroupsService. */
export function attributeGroupsGrpc(
  service: RecordService<AttributeGroupEntity, AttributeGroupView, AttributeGroupInput>,
  logger: Logger,
): ServiceRegistration {
  const h = recordHandlers(
    service,
    attributeGroupCodec,
    logger,
    { one: 'AttributeGroup', many: 'AttributeGroups' },
    (req: pb.BatchGetAttributeGroupsRequest) => req.keys ?? [],
  );
  const implementation: pb.AttributeGroupsServiceServer = {
    createAttributeGroup: h.create,
    getAttributeGroup: h.get,
    updateAttributeGroup: h.update,
    patchAttributeGroup: h.patch,
    deleteAttributeGroup: h.delete,
    listAttributeGroups: h.list,
    batchGetAttributeGroups: h.batchGet,
  };
  return {
    name: 'pim.catalog.v1.AttributeGroupsService',
    definition: pb.AttributeGroupsServiceService,
    implementation,
  };
}
