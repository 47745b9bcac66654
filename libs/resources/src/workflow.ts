import { z } from 'zod';
import { objectIdSchema } from './common';
import { field } from './declare/field';
import { defineResource } from './declare/resource';
import {
  codeField,
  defaultFlagField,
  plainDescriptionField,
  plainNameField,
  requiredEnabledField,
  requiredText,
} from './plain-fields';
import { codeSchema, codeViewSchema, userIdSchema, userIdViewSchema } from './codes';
import { tagsField } from './taxonomy';
import { groupUserSchema, groupUserViewSchema, groupUsersToWire } from './users-group';

/** A status's outcome: `COMPLETED` or `CANCELED` ends an order there; empty is a status on the way. */
export const STATUS_OUTCOMES = ['COMPLETED', 'CANCELED', ''] as const;

const statusInput = z
  .strictObject({
    _id: objectIdSchema.optional(),
    code: codeSchema({ description: 'Unique among the statuses of the workflow', example: 'awaiting_payment' }),
    name: requiredText(200, 'Name', 'Awaiting payment'),
    color: z.string().max(50).optional(),
    tags: z.array(z.string().min(1).max(100)).max(100).optional(),
    notify: z.boolean().optional(),
    enabled: z.boolean().optional(),
    outcome: z
      .enum(STATUS_OUTCOMES)
      .optional()
      .meta({ description: 'COMPLETED or CANCELED: an order ends here; empty or absent: a status on the way' }),
    moves_to: z
      .array(codeSchema({ description: 'A status code of this workflow', example: 'paid' }))
      .max(500)
      .optional()
      .meta({ description: 'Codes of the statuses an order may move to from this one; empty or absent: any' }),
  })
  .meta({ id: 'WorkflowStatusInput', description: 'A status of a step; `_id` is given by the server when absent' });

/** A status as a workflow shows it: every key but `color` always present (filled in when not given). */
const statusView = statusInput
  .extend({
    _id: objectIdSchema,
    tags: z.array(z.string().max(100)).max(100),
    notify: z.boolean().meta({ description: 'Whether reaching it notifies (default false)' }),
    enabled: z.boolean().meta({ description: 'Whether orders may enter it (default true)' }),
    outcome: z.enum(STATUS_OUTCOMES),
    moves_to: z.array(codeViewSchema()).max(500),
  })
  .meta({ id: 'WorkflowStatus', description: 'A status of a step' });

/** A users group as a step carries it: its id, and what it was when the step named it. */
const stepUsersGroupSchema = z
  .strictObject({
    _id: objectIdSchema.optional(),
    source_id: z.string().max(200).optional(),
    name: z.string().max(200).optional(),
    description: z.string().max(10_000).optional(),
    has_full_product_access: z.boolean().optional(),
    users: z.array(groupUserSchema).max(10_000).optional(),
  })
  .meta({ id: 'WorkflowStepUsersGroup', description: 'A users group responsible for the step' });

const stepUsersGroupView = stepUsersGroupSchema
  .extend({ users: z.array(groupUserViewSchema).max(10_000) })
  .meta({ id: 'WorkflowStepUsersGroupView', description: 'A users group responsible for the step' });

/** A user a step names: their user id (what API keys are bound to) and name. */
const stepUserSchema = z.strictObject({ id: userIdSchema, name: z.string().max(200) });
const stepUserView = z.strictObject({ id: userIdViewSchema, name: z.string().max(200) });

const stepShape = {
  code: codeSchema({ description: 'Unique among the steps of the workflow', example: 'payment' }),
  name: requiredText(200, 'Name', 'Payment'),
  description: z.string().max(10_000).optional(),
  allocation_time: z.number().min(0).max(1e9).optional().meta({ description: 'Time allowed in the step, in hours' }),
  users_groups: z.array(stepUsersGroupSchema).max(100).optional(),
  users: z.array(stepUserSchema).max(1_000).optional(),
  scopes: z.array(z.string().min(1).max(100)).max(100).optional(),
  locker: z.boolean().optional(),
  editable: z.boolean().optional(),
};

const stepInput = z
  .strictObject({ ...stepShape, status: z.array(statusInput).max(200).optional() })
  .meta({ id: 'WorkflowStepInput', description: 'A step: its statuses, and who works in it' });
/** A step as a workflow shows it: its lists and flags always present (empty or false when not given). */
const stepView = z
  .strictObject({
    ...stepShape,
    users_groups: z.array(stepUsersGroupView).max(100),
    users: z.array(stepUserView).max(1_000),
    status: z.array(statusView).max(200),
    scopes: z.array(z.string().max(100)).max(100),
    locker: z.boolean(),
    editable: z.boolean(),
  })
  .meta({ id: 'WorkflowStep', description: 'A step: its statuses, and who works in it' });

/** A step of a workflow as shown. */
export type WorkflowStepView = z.infer<typeof stepView>;

/** A step of a workflow as written. */
export type WorkflowStepInput = z.infer<typeof stepInput>;

/** One problem of a workflow's steps, at its path in the input. */
export interface StepProblem {
  path: (string | number)[];
  message: string;
}

/** Problems of a workflow's steps: a step code or a status code repeated, a move to a status the workflow lacks. */
export function workflowStepProblems(steps: WorkflowStepInput[]): StepProblem[] {
  const problems: StepProblem[] = [];
  const stepCodes = new Map<string, number>();
  const statusCodes = new Map<string, string>();
  steps.forEach((step, i) => {
    const earlier = stepCodes.get(step.code);
    if (earlier !== undefined)
      problems.push({ path: ['steps', i, 'code'], message: `repeats the code of steps.${earlier}` });
    else stepCodes.set(step.code, i);
    (step.status ?? []).forEach((s, j) => {
      const at = statusCodes.get(s.code);
      if (at !== undefined)
        problems.push({
          path: ['steps', i, 'status', j, 'code'],
          message: `'${s.code}' is already the code of ${at}; status codes are unique within a workflow`,
        });
      else statusCodes.set(s.code, `steps.${i}.status.${j}`);
    });
  });
  steps.forEach((step, i) =>
    (step.status ?? []).forEach((s, j) =>
      (s.moves_to ?? []).forEach((code, k) => {
        if (!statusCodes.has(code))
          problems.push({
            path: ['steps', i, 'status', j, 'moves_to', k],
            message: `names no status of this workflow ('${code}')`,
          });
      }),
    ),
  );
  return problems;
}

/**
 * Workflows: the steps and statuses orders move through. Named by `code`; at most one live
 * workflow is the default. Status codes are unique within a workflow, and each status may list the
 * statuses an order may move to from it.
 */
export const Workflow = defineResource({
  collection: 'workflows',
  description: 'Workflow: the steps and statuses an order moves through',
  fields: {
    filters: field
      .of('object', {
        input: z
          .record(z.string().max(100), z.unknown())
          .meta({ description: 'Which cases it applies to, e.g. {"all": true}', example: { all: true } }),
      })
      .default({}),
    steps: field.of('array', { input: z.array(stepInput).max(100), view: z.array(stepView).max(100) }).default([]),
    code: codeField,
    name: plainNameField,
    description: plainDescriptionField,
    tags: tagsField,
    enabled: requiredEnabledField,
    default: defaultFlagField('workflow'),
  },
  refine(value, ctx) {
    for (const p of workflowStepProblems((value.steps ?? []) as WorkflowStepInput[]))
      ctx.addIssue({ code: 'custom', path: p.path, message: p.message });
  },
});

/** A workflow as the API shows it. */
export type WorkflowView = z.infer<typeof Workflow.schemas.view>;
/** Writable fields of a workflow. */
export type WorkflowInput = z.infer<typeof Workflow.schemas.input>;

/** A record or element with its REST `_id`. */
export type Ided = { _id?: string } & Record<string, unknown>;
/** The same as proto carries it (`id`: proto field names cannot start with an underscore). */
export type Wired = { id?: string } & Record<string, unknown>;
/** `_id` → `id` (absent stays absent). */
export const idOut = ({ _id, ...rest }: Ided): Wired => (_id === undefined ? rest : { id: _id, ...rest });
/** `id` → `_id` (absent stays absent). */
export const idIn = ({ id, ...rest }: Wired): Ided => (id === undefined ? rest : { _id: id, ...rest });

/**
 * A workflow's steps as its proto messages carry them: a status's and a step users group's `_id`
 * travel as `id` (proto field names cannot start with an underscore), and every list and
 * plain flag is present with its default (proto has no absent list or plain scalar). Both the owner and the gateway convert with these two.
 */
export function workflowStepsToWire(steps: unknown): unknown {
  return ((steps ?? []) as Record<string, unknown>[]).map((step) => ({
    ...step,
    status: ((step.status ?? []) as Ided[]).map((s) => ({
      ...idOut(s),
      tags: s.tags ?? [],
      notify: s.notify ?? false,
      outcome: s.outcome ?? '',
      moves_to: s.moves_to ?? [],
    })),
    users_groups: ((step.users_groups ?? []) as Ided[]).map((g) => ({ ...idOut(g), users: groupUsersToWire(g.users) })),
    users: step.users ?? [],
    scopes: step.scopes ?? [],
    locker: step.locker ?? false,
    editable: step.editable ?? false,
  }));
}

/** A workflow's steps from their proto form (see workflowStepsToWire). */
export function workflowStepsFromWire(steps: unknown): unknown {
  return ((steps ?? []) as Record<string, unknown>[]).map((step) => ({
    ...step,
    ...(step.status ? { status: (step.status as Wired[]).map(idIn) } : {}),
    ...(step.users_groups ? { users_groups: (step.users_groups as Wired[]).map(idIn) } : {}),
  }));
}
