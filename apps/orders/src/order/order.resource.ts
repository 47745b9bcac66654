import type { SelectQueryBuilder } from 'typeorm';
import { ConflictError, ValidationError, withLinks } from '@pim/errors';
import { currentContext } from '@pim/logging';
import type { Filter } from '@pim/query';
import { declaredRecord } from '@pim/records';
import { Order, channelInput, type OrderInput, type WorkflowView } from '@pim/resources';
import { OrderEntity } from '../entities/order.entity';
import type { WorkflowsLink } from '../links/workflows.link';
import { firstPlace, moveTo, slaOverdueDate } from './order.moves';

/** The filter a list adds for orders past a due date: `overdue=true|false`. */
export const OVERDUE_FILTER = 'overdue';

/**
 * `overdue=true`: not final, and the SLA date or the status date has passed (now, when the list
 * runs); `overdue=false`: the others. Served by the partial index on the earliest of the two dates.
 */
function applyOverdue(qb: SelectQueryBuilder<OrderEntity>, filters: Filter[]): void {
  for (const f of filters) {
    const value = f.values[0];
    if (f.field !== OVERDUE_FILTER || f.op !== 'eq' || f.values.length !== 1 || !['true', 'false'].includes(value)) {
      throw new ValidationError(`${f.field} takes true or false`, {
        title: 'Invalid filter',
        details: [{ field: f.field, message: 'must be overdue=true or overdue=false' }],
      });
    }
    const overdue = `(t.final_status_type IS NULL AND LEAST(t.sla_overdue_date, t.status_overdue_date) < now())`;
    qb.andWhere(value === 'true' ? overdue : `NOT ${overdue}`);
  }
}

/** The workflow an order names (by id or code), else the default one; a 400 or 409 naming what is missing. */
async function workflowFor(workflows: WorkflowsLink, id: string | null, code: string | null): Promise<WorkflowView> {
  if (id !== null || code !== null) {
    const found = await workflows.find({ id: id ?? undefined, code: id === null ? (code ?? undefined) : undefined });
    if (found && (id === null || code === null || found.code === code)) {
      if (!found.enabled)
        throw new ValidationError(`Workflow '${found.code}' is disabled`, {
          title: 'Workflow disabled',
          solution: 'Enable the workflow or name another one',
          details: [{ field: id !== null ? 'workflow_id' : 'workflow_code', message: 'names a disabled workflow' }],
        });
      return found;
    }
    const field = id !== null ? 'workflow_id' : 'workflow_code';
    throw new ValidationError(`No live workflow with ${field === 'workflow_id' ? `_id '${id}'` : `code '${code}'`}`, {
      title: 'Unknown workflow',
      ...withLinks((link) => `Name a live workflow from ${link({ collection: 'workflows' })}`),
      details: [
        {
          field,
          message:
            found && code !== null
              ? `workflow '${id}' has the code '${found.code}', not '${code}'`
              : 'no live workflow',
        },
      ],
    });
  }
  const fallback = await workflows.defaultOne();
  if (!fallback || !fallback.enabled) {
    throw new ConflictError('No default workflow to place the order under', {
      title: 'No default workflow',
      ...withLinks(
        (link) =>
          `Name a workflow (workflow_id or workflow_code), or make one the default (${link({ collection: 'workflows' })})`,
      ),
      details: [{ field: 'workflow_code', message: 'none given and no enabled default workflow' }],
    });
  }
  return fallback;
}

/**
 * The workflow an order input names: `workflow_id`/`workflow_code`, or the `workflow` object by
 * `_id`/`code` (the order's own shape); the same workflow named both ways is one, two are refused.
 */
function workflowNamed(input: OrderInput): { workflow_id?: string; workflow_code?: string } {
  const ref = input.workflow as { _id?: string; code?: string } | undefined;
  const id = input.workflow_id ?? ref?._id;
  const code = input.workflow_code ?? ref?.code;
  const clash =
    (input.workflow_id !== undefined && ref?._id !== undefined && input.workflow_id !== ref._id) ||
    (input.workflow_code !== undefined && ref?.code !== undefined && input.workflow_code !== ref.code);
  if (clash)
    throw new ValidationError('workflow and workflow_id or workflow_code name two different workflows', {
      title: 'Two workflows named',
      solution: 'Name the workflow once: workflow: {_id} or {code}, or workflow_id or workflow_code',
      details: [{ field: 'workflow', message: 'names another workflow than workflow_id or workflow_code' }],
    });
  return { ...(id !== undefined ? { workflow_id: id } : {}), ...(code !== undefined ? { workflow_code: code } : {}) };
}

/**
 * Orders on the record engine: named by their code. On create the order copies the workflow it
 * names (or the default one) and starts in its first status (its first tracking entry); later
 * writes keep the workflow, the status and the
 * history (moves, comments, payments and invoices have calls of their own).
 */
export const orderRecord = (workflows: WorkflowsLink) =>
  declaredRecord(Order, {
    entity: OrderEntity,
    handle: 'code',
    derived: (input, prev) => {
      const placedAt = input.placed_at ? new Date(input.placed_at) : (prev?.placed_at ?? new Date());
      return {
        placed_at: placedAt,
        sort_date: input.sort_date ? new Date(input.sort_date) : placedAt,
        sla_overdue_date: slaOverdueDate(placedAt, input.sla),
        customer_email: input.customer.email ?? null,
        customer_document: input.customer.document ?? null,
        channel_code: input.channel.code,
        // Stored as the view shows it: `_id`, as some channels send it, is the channel's id.
        channel: channelInput(input.channel),
        // On create only: later writes keep the workflow (a change is refused in beforeWrite).
        ...(prev ? {} : workflowNamed(input)),
      };
    },
    nestedFilters: [{ prefix: OVERDUE_FILTER, apply: async (_m, qb, filters) => applyOverdue(qb, filters) }],
    hooks: {
      async beforeWrite(_m, next, prev) {
        if (prev) {
          // The workflow stays: an input that leaves it out keeps it, one that names another is refused.
          const id = next.workflow_id ?? prev.workflow_id;
          const code = next.workflow_code ?? prev.workflow_code;
          if (id !== prev.workflow_id || code !== prev.workflow_code) {
            throw new ConflictError(`Order '${prev.code}' follows workflow '${prev.workflow_code}': it keeps it`, {
              title: 'Workflow kept',
              solution: 'Leave workflow_id and workflow_code out (or as they are) when changing an order',
              details: [{ field: 'workflow_code', message: `is '${prev.workflow_code}'` }],
            });
          }
          Object.assign(next, {
            workflow_id: prev.workflow_id,
            workflow_code: prev.workflow_code,
            workflow: prev.workflow,
          });
          return;
        }
        const workflow = await workflowFor(workflows, next.workflow_id, next.workflow_code);
        Object.assign(next, { workflow_id: workflow._id, workflow_code: workflow.code, workflow });
        // The first status is where the order starts, not a move: its `created` event carries it.
        moveTo(next, firstPlace(workflow), currentContext()?.actor ?? {}, undefined, new Date());
      },
    },
  });
