import { newId } from '@pim/ids';
import { declaredRecord, exclusiveFlag } from '@pim/records';
import { WorkflowApproval, type WorkflowApprovalStepInput } from '@pim/resources';
import { WorkflowApprovalEntity } from '../entities/workflow-approval.entity';
import { checkProductFilters } from '../links/catalog.link';

const oneDefault = exclusiveFlag(WorkflowApprovalEntity, 'default', 'workflow.workflow_approvals.default');

/** Each step with a `step_id`: the one given, else the one the step of the same order had, else a new one. */
function storedSteps(steps: WorkflowApprovalStepInput[], prev: { step_id: string; order: number }[]) {
  const prevIds = new Map(prev.map((s) => [s.order, s.step_id]));
  return steps.map((s) => ({ ...s, step_id: s.step_id ?? prevIds.get(s.order) ?? newId() }));
}

/**
 * Workflow approvals on the record engine: named by their code; their filters are ones the product
 * list takes; each step gets a `step_id`; at
 * most one live workflow approval is the default (making one the default clears the previous
 * one, which gets its `updated` event).
 */
export const workflowApprovalRecord = declaredRecord(WorkflowApproval, {
  entity: WorkflowApprovalEntity,
  handle: 'code',
  derived: (input, prev) => {
    checkProductFilters((input.filters ?? {}) as Record<string, string | string[]>);
    return {
      steps: storedSteps(input.steps ?? [], (prev?.steps ?? []) as { step_id: string; order: number }[]),
    };
  },
  hooks: { lock: oneDefault.lock, beforeWrite: oneDefault.beforeWrite },
});
