import { attributes as pb } from '@pim/contracts';
import type { Logger } from '@pim/logging';
import type { AttributeOptionView } from '@pim/resources';
import { fromProtoListQuery, unary, type ServiceRegistration } from '@pim/rpc';
import { viewToMessage } from '@pim/records';
import type { AttributeOptionsService } from './attribute-option.service';

const encode = (view: AttributeOptionView): pb.AttributeOption => viewToMessage(view);
const input = (i: pb.AttributeOptionInput | undefined) => ({ ...(i ?? {}) });

/** gRPC handlers of pim.catalog.v1.AttributeOptionsService: every call names the attribute. */
export function attributeOptionsGrpc(service: AttributeOptionsService, logger: Logger): ServiceRegistration {
  const implementation: pb.AttributeOptionsServiceServer = {
    createAttributeOption: unary(logger, 'CreateAttributeOption', async (req) => ({
      data: encode(await service.create(req.attribute_id, input(req.input))),
    })),
    getAttributeOption: unary(logger, 'GetAttributeOption', async (req) => ({
      data: encode(await service.get(req.attribute_id, req.id)),
    })),
    updateAttributeOption: unary(logger, 'UpdateAttributeOption', async (req) => ({
      data: encode(await service.replace(req.attribute_id, req.id, input(req.input), req.expected_version)),
    })),
    patchAttributeOption: unary(logger, 'PatchAttributeOption', async (req) => ({
      data: encode(await service.patch(req.attribute_id, req.id, req.patch ?? {}, req.expected_version)),
    })),
    deleteAttributeOption: unary(logger, 'DeleteAttributeOption', async (req) => ({
      data: encode(await service.remove(req.attribute_id, req.id, req.expected_version)),
    })),
    listAttributeOptions: unary(logger, 'ListAttributeOptions', async (req) => {
      const r = await service.list(req.attribute_id, fromProtoListQuery(req.query));
      return { data: r.data.map(encode), page_info: { total: r.total } };
    }),
    batchGetAttributeOptions: unary(logger, 'BatchGetAttributeOptions', async (req) => ({
      data: (await service.batchGet(req.ids ?? [], req.attribute_id, req.values ?? [])).map(encode),
    })),
  };
  return {
    name: 'pim.catalog.v1.AttributeOptionsService',
    definition: pb.AttributeOptionsServiceService,
    implementation,
  };
}
