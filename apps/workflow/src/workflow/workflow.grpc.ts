import { workflow as pb } from '@pim/contracts';
import type { Logger } from '@pim/logging';
import { workflowStepsFromWire, workflowStepsToWire, type WorkflowInput, type WorkflowView } from '@pim/resources';
import type { ServiceRegistration } from '@pim/rpc';
import { recordHandlers, viewToMessage, type MessageCodec, type RecordService } from '@pim/records';
import type { WorkflowEntity } from '../entities/workflow.entity';

/** Statuses and step users groups carry `_id` in REST and `id` in protos. */
const workflowCodec: MessageCodec<WorkflowView, pb.Workflow, pb.WorkflowInput> = {
  toMessage: (view) => ({ ...viewToMessage(view), steps: workflowStepsToWire(view.steps) as pb.WorkflowStep[] }),
  fromInput: (input) => ({ ...(input ?? {}), steps: workflowStepsFromWire(input?.steps) }),
};

/** gRPC handlers of pim.workflow.v1.WorkflowsService. */
export function workflowsGrpc(
  service: RecordService<WorkflowEntity, WorkflowView, WorkflowInput>,
  logger: Logger,
): ServiceRegistration {
  const h = recordHandlers(
    service,
    workflowCodec,
    logger,
    { one: 'Workflow', many: 'Workflows' },
    (req: pb.BatchGetWorkflowsRequest) => req.codes ?? [],
  );
  const implementation: pb.WorkflowsServiceServer = {
    createWorkflow: h.create,
    getWorkflow: h.get,
    updateWorkflow: h.update,
    patchWorkflow: h.patch,
    deleteWorkflow: h.delete,
    listWorkflows: h.list,
    batchGetWorkflows: h.batchGet,
  };
  return { name: 'pim.workflow.v1.WorkflowsService', definition: pb.WorkflowsServiceService, implementation };
}
