import { ConflictError } from '@pim/errors';
import { declaredRecord, exclusiveFlag } from '@pim/records';
import { Workflow, type WorkflowStepView } from '@pim/resources';
import { WorkflowEntity } from '../entities/workflow.entity';
import type { OrdersLink } from '../links/orders.link';
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

/**
 * Workflows as the app serves them: a workflow that open orders follow (live, not final) is not
 * deleted — 409 with their count. The orders app counts them; while it does not answer, a delete
 * is a 503 and nothing changes.
 */
export const guardedWorkflowRecord = (orders: OrdersLink): typeof workflowRecord => ({
  ...workflowRecord,
  hooks: {
    ...workflowRecord.hooks,
    async beforeDelete(_m, record) {
      const open = await orders.openOrders(record._id);
      if (open === 0) return;
      throw new ConflictError(`Workflow '${record.code}' is followed by ${open} open order(s)`, {
        title: 'Workflow in use',
        solution: 'Let those orders reach a final status (or delete them) first, or disable the workflow instead',
        details: [{ field: '_id', message: `${open} open order(s) follow it` }],
      });
    },
  },
});
