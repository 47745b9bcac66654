import { ConflictError, ValidationError } from '@pim/errors';
import { newId } from '@pim/ids';
import type { Actor } from '@pim/logging';
import type { OrderTracking, WorkflowStepView, WorkflowView } from '@pim/resources';
import type { OrderEntity } from '../entities/order.entity';

type Status = WorkflowStepView['status'][number];

/** A status of a workflow and the step it belongs to. */
export interface Place {
  step: WorkflowStepView;
  status: Status;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/** Every status of a workflow with its step, in the workflow's order. */
const placesOf = (workflow: WorkflowView): Place[] =>
  workflow.steps.flatMap((step) => step.status.map((status) => ({ step, status })));

/** Where a new order starts: the first enabled status of the workflow's first step. */
export function firstPlace(workflow: WorkflowView): Place {
  const step = workflow.steps[0];
  const status = step?.status.find((s) => s.enabled);
  if (!step || !status) {
    throw new ConflictError(`Workflow '${workflow.code}' has no enabled status in its first step`, {
      title: 'Workflow cannot start orders',
      solution: 'Give the first step of the workflow an enabled status, or name another workflow',
      details: [{ field: 'workflow_code', message: `workflow '${workflow.code}' has no status an order can start in` }],
    });
  }
  return { step, status };
}

/**
 * The status an order asks to move to, if the move is allowed: the order is not final, the code
 * is a status of the order's workflow, the status is enabled, and the current status allows it
 * (its `moves_to` lists the code, or lists none).
 */
export function placeToMoveTo(order: OrderEntity, code: string): Place {
  const workflow = order.workflow as WorkflowView;
  const current = order.status_code ?? '';
  if (order.final_status_type) {
    throw new ConflictError(
      `Order '${order.code}' is final (${order.final_status_type} at status '${current}'): it cannot move to '${code}'`,
      {
        title: 'Order is final',
        solution: 'A completed or canceled order does not move again',
        details: [{ field: 'status_code', message: `order is ${order.final_status_type}` }],
      },
    );
  }
  const places = placesOf(workflow);
  const target = places.find((p) => p.status.code === code);
  if (!target) {
    throw new ValidationError(`Status '${code}' is not a status of workflow '${workflow.code}'`, {
      title: 'Unknown status',
      solution: `Use one of: ${places.map((p) => p.status.code).join(', ')}`,
      details: [{ field: 'status_code', message: `not a status of workflow '${workflow.code}'` }],
    });
  }
  const from = places.find((p) => p.status.code === current);
  const allowed = from === undefined || from.status.moves_to.length === 0 || from.status.moves_to.includes(code);
  if (!allowed || !target.status.enabled || code === current) {
    const why = !allowed
      ? `status '${current}' moves only to ${from!.status.moves_to.map((c) => `'${c}'`).join(', ')}`
      : !target.status.enabled
        ? `status '${code}' is disabled`
        : `the order is already in status '${code}'`;
    throw new ConflictError(`Order '${order.code}' cannot move from status '${current}' to '${code}': ${why}`, {
      title: 'Move not allowed',
      solution: 'Move the order to a status its current status allows (the workflow lists them in moves_to)',
      details: [{ field: 'status_code', message: why }],
    });
  }
  return target;
}

/** What a move records: the tracking entry, and the event's `{from, to, outcome, actor, at}`. */
export interface Move {
  tracking: OrderTracking;
  event: { _id: string; code: string; from: string | null; to: string; outcome: string; actor: Actor; at: string };
}

/**
 * Puts the order in a status: appends its tracking entry and sets the status fields, the time
 * since it was placed (`elapsed_time`, whole minutes), the step's due date (`status_overdue_date`:
 * now + the step's `allocation_time` hours, none without one), the last interaction (when the
 * actor is a user) and, for a status with an outcome, the final fields.
 */
export function moveTo(order: OrderEntity, place: Place, actor: Actor, comment: string | undefined, now: Date): Move {
  const from = order.status_code ?? null;
  const placedAt = order.placed_at ?? now;
  const elapsed = Math.max(0, Math.floor((now.getTime() - placedAt.getTime()) / MINUTE_MS));
  const tracking: OrderTracking = {
    _id: newId(),
    from_status_code: from,
    to_status_code: place.status.code,
    step_code: place.step.code,
    outcome: place.status.outcome,
    ...(comment ? { comment } : {}),
    actor: {
      ...(actor.user_id ? { user_id: actor.user_id } : {}),
      ...(actor.user_name ? { user_name: actor.user_name } : {}),
    },
    at: now.toISOString(),
    elapsed_time: elapsed,
  };
  order.order_trackings = [...((order.order_trackings ?? []) as OrderTracking[]), tracking];
  order.status = {
    _id: place.status._id,
    code: place.status.code,
    name: place.status.name,
    ...(place.status.color !== undefined ? { color: place.status.color } : {}),
    tracking_id: tracking._id,
    tags: place.status.tags,
  };
  order.status_code = place.status.code;
  order.step_code = place.step.code;
  order.status_updated_at = now;
  order.elapsed_time = elapsed;
  const hours = place.step.allocation_time;
  order.status_overdue_date = hours === undefined ? null : new Date(now.getTime() + hours * HOUR_MS);
  if (actor.user_id) {
    order.last_interaction = {
      user_id: actor.user_id,
      user_name: actor.user_name ?? actor.user_id,
      interacted_at: now.toISOString(),
    };
  }
  if (place.status.outcome) {
    order.final_status_type = place.status.outcome;
    order.final_status_at = now;
  }
  return {
    tracking,
    event: {
      _id: order._id,
      code: order.code,
      from,
      to: place.status.code,
      outcome: place.status.outcome,
      actor: tracking.actor,
      at: tracking.at,
    },
  };
}

/** `placed_at + sla` minutes, or none. */
export const slaOverdueDate = (placedAt: Date, sla: number | null | undefined): Date | null =>
  sla === null || sla === undefined ? null : new Date(placedAt.getTime() + sla * MINUTE_MS);
