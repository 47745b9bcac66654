import { declaredRecord, exclusiveFlag } from '@pim/records';
import { Workflow, type WorkflowStepView } from '@pim/resources';
import { WorkflowEntity } from '../entities/workflow.entity';
import { storedSteps } from './workflow.steps';

const oneDefault = exclusiveFlag(WorkflowEntity, 'default', 'workflow.workflows.default');

/**
 * Workflows on the record engine: named by their code. Their steps are stored with every list and
 * flag filled in and each status with an id; at most one live workflow is the default (making one
 * the default clears the previous one, which gets its `updated` event).
 */
export const workflowRecord = declaredRecord(Workflow, {
  entity: WorkflowEntity,
  handle: 'code',
  derived: (input, prev) => ({ steps: storedSteps(input.steps ?? [], (prev?.steps ?? []) as WorkflowStepView[]) }),
  hooks: { lock: oneDefault.lock, beforeWrite: oneDefault.beforeWrite },
});
