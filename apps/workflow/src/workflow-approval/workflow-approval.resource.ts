import { newId } from '@pim/ids';
import { declaredRecord, exclusiveFlag } from '@pim/records';
import { WorkflowApproval, type WorkflowApprovalStepInput } from '@pim/resources';
import { WorkflowApprovalEntity } from '../entities/workflow-approval.entity';
import { checkApprovalFilters, type CatalogLink } from '../links/catalog.link';
import type { ProductFilters } from '@pim/resources';

const oneDefault = exclusiveFlag(WorkflowApprovalEntity, 'default', 'workflow.workflow_approvals.default');

/** Each step with a `step_id`: the one given, else the one the step of the same order had, else a new one. */
function storedSteps(steps: WorkflowApprovalStepInput[], prev: { step_id: string; order: number }[]) {
  const prevIds = new Map(prev.map((s) => [s.order, s.step_id]));
  return steps.map((s) => ({ ...s, step_id: s.step_id ?? prevIds.get(s.order) ?? newId() }));
}

/**
 * Workflow approvals on the record engine: named by their code; their filters are ones the product
 * list takes (attribute filters checked by the catalog as the writer); each step gets a `step_id`; at
 * most one live workflow approval is the default (making one the default clears the previous
 * one, which gets its `updated` event).
 */
export const workflowApprovalRecord = (catalog: Pick<CatalogLink, 'checkProductsQuery'>) =>
  declaredRecord(WorkflowApproval, {
    entity: WorkflowApprovalEntity,
    handle: 'code',
    derived: (input, prev) => ({
      steps: storedSteps(input.steps ?? [], (prev?.steps ?? []) as { step_id: string; order: number }[]),
    }),
    hooks: {
      lock: oneDefault.lock,
      async beforeWrite(m, next, prev, emit) {
        // Filters are checked as the writer when they are given or changed: a write that keeps
        // stored filters naming an attribute hidden from the writer is not theirs to refuse.
        if (!prev || JSON.stringify(prev.filters) !== JSON.stringify(next.filters))
          await checkApprovalFilters(catalog, (next.filters ?? {}) as ProductFilters);
        await oneDefault.beforeWrite(m, next, prev, emit);
      },
    },
  });
