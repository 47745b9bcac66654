import { workflow as pb } from '@pim/contracts';
import type { Logger } from '@pim/logging';
import type { WorkflowApprovalInput, WorkflowApprovalView } from '@pim/resources';
import type { ServiceRegistration } from '@pim/rpc';
import { recordHandlers, viewToMessage, type MessageCodec, type RecordService } from '@pim/records';
import type { WorkflowApprovalEntity } from '../entities/workflow-approval.entity';

/** The message mirrors the view; `filters` travels as a Struct (a message field proto may leave unset). */
const workflowApprovalCodec: MessageCodec<WorkflowApprovalView, pb.WorkflowApproval, pb.WorkflowApprovalInput> = {
  toMessage: (view) => viewToMessage(view),
  fromInput: (input) => ({ ...(input ?? {}) }),
};

/** gRPC handlers of pim.workflow.v1.WorkflowApprovalsService. */
export function workflowApprovalsGrpc(
  service: RecordService<WorkflowApprovalEntity, WorkflowApprovalView, WorkflowApprovalInput>,
  logger: Logger,
): ServiceRegistration {
  const h = recordHandlers(
    service,
    workflowApprovalCodec,
    logger,
    { one: 'WorkflowApproval', many: 'WorkflowApprovals' },
    (req: pb.BatchGetWorkflowApprovalsRequest) => req.codes ?? [],
  );
  const implementation: pb.WorkflowApprovalsServiceServer = {
    createWorkflowApproval: h.create,
    getWorkflowApproval: h.get,
    updateWorkflowApproval: h.update,
    patchWorkflowApproval: h.patch,
    deleteWorkflowApproval: h.delete,
    listWorkflowApprovals: h.list,
    batchGetWorkflowApprovals: h.batchGet,
  };
  return {
    name: 'pim.workflow.v1.WorkflowApprovalsService',
    definition: pb.WorkflowApprovalsServiceService,
    implementation,
  };
}
