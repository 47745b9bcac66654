import { taxonomy as pb } from '@pim/contracts';
import type { Logger } from '@pim/logging';
import type { FamilyInput, FamilyView } from '@pim/resources';
import type { ServiceRegistration } from '@pim/rpc';
import { type MessageCodec, type RecordService, recordHandlers, viewToMessage } from '@pim/records';
import type { FamilyEntity } from '../entities/family.entity';

/** Family attributes carry `_id` in REST and `id` in protos (buf lint forbids a leading underscore). */
const familyCodec: MessageCodec<FamilyView, pb.Family, pb.FamilyInput> = {
  toMessage: (view) => ({
    ...viewToMessage(view),
    attributes: view.attributes.map((a) => ({ id: a._id, required: a.required })),
  }),
  fromInput: (input) => ({
    ...(input ?? {}),
    attributes: (input?.attributes ?? []).map((a) => ({ _id: a.id, required: a.required })),
  }),
};

/** gRPC handlers of pim.catalog.v1.FamiliesService. */
export function familiesGrpc(
  service: RecordService<FamilyEntity, FamilyView, FamilyInput>,
  logger: Logger,
): ServiceRegistration {
  const h = recordHandlers(
    service,
    familyCodec,
    logger,
    { one: 'Family', many: 'Families' },
    (req: pb.BatchGetFamiliesRequest) => req.codes ?? [],
  );
  const implementation: pb.FamiliesServiceServer = {
    createFamily: h.create,
    getFamily: h.get,
    updateFamily: h.update,
    patchFamily: h.patch,
    deleteFamily: h.delete,
    listFamilies: h.list,
    batchGetFamilies: h.batchGet,
  };
  return { name: 'pim.catalog.v1.FamiliesService', definition: pb.FamiliesServiceService, implementation };
}
