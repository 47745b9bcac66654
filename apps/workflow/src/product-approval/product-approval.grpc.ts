import { workflow as pb } from '@pim/contracts';
import type { Logger } from '@pim/logging';
import { PROPOSED_CHANGES, type ProductApprovalInput, type ProductApprovalView } from '@pim/resources';
import { unary, type ServiceRegistration } from '@pim/rpc';
import { recordHandlers, viewToMessage, type MessageCodec, type RecordService } from '@pim/records';
import type { ProductApprovalEntity } from '../entities/product-approval.entity';
import type { ProductApprovalDecisions } from './product-approval.decisions';

/** Keys proto leaves unset as undefined are dropped, so the strict input schema sees only what was given. */
const given = <T extends object>(item: T) =>
  Object.fromEntries(Object.entries(item).filter(([, v]) => v !== undefined)) as Partial<T>;

/** The message mirrors the view (`_id` → `id`); input items lose the keys proto left unset. */
const productApprovalCodec: MessageCodec<ProductApprovalView, pb.ProductApproval, pb.ProductApprovalInput> = {
  toMessage: (view) => viewToMessage(view) as unknown as pb.ProductApproval,
  fromInput: (input) => {
    const plain: Record<string, unknown> = { ...(input ?? {}) };
    for (const list of Object.keys(PROPOSED_CHANGES))
      plain[list] = ((plain[list] ?? []) as pb.ProductApprovalItem[]).map(given);
    return plain;
  },
};

/** gRPC handlers of pim.workflow.v1.ProductApprovalsService: the record calls and the two decisions. */
export function productApprovalsGrpc(
  service: RecordService<ProductApprovalEntity, ProductApprovalView, ProductApprovalInput>,
  decisions: ProductApprovalDecisions,
  logger: Logger,
): ServiceRegistration {
  const h = recordHandlers(
    service,
    productApprovalCodec,
    logger,
    { one: 'ProductApproval', many: 'ProductApprovals' },
    () => [],
  );
  const encode = (view: ProductApprovalView) => ({ data: productApprovalCodec.toMessage(view) });
  const implementation: pb.ProductApprovalsServiceServer = {
    createProductApproval: h.create,
    getProductApproval: h.get,
    updateProductApproval: h.update,
    patchProductApproval: h.patch,
    deleteProductApproval: h.delete,
    listProductApprovals: h.list,
    batchGetProductApprovals: h.batchGet,
    approveProductApproval: unary(logger, 'ApproveProductApproval', async (req: pb.ApproveProductApprovalRequest) =>
      encode(await decisions.approve(req.id, req.comment, req.expected_version)),
    ),
    rejectProductApproval: unary(logger, 'RejectProductApproval', async (req: pb.RejectProductApprovalRequest) =>
      encode(await decisions.reject(req.id, req.comment, req.expected_version)),
    ),
  };
  return {
    name: 'pim.workflow.v1.ProductApprovalsService',
    definition: pb.ProductApprovalsServiceService,
    implementation,
  };
}
