import { z } from 'zod';
import { productFiltersSchema } from './product-filters';
import { userIdSchema, userIdViewSchema } from './codes';
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
import { idSetSchema, tagsField } from './taxonomy';

const approvalStepInput = z
  .strictObject({
    step_id: objectIdSchema.optional(),
    name: requiredText(200, 'Name', 'Marketing review'),
    order: z
      .number()
      .int()
      .min(0)
      .max(1_000)
      .meta({ format: 'int32', description: 'Position of the step; steps run in ascending order, each order once' }),
    approvers: z.array(userIdSchema).min(1, 'must name at least one approver').max(1_000).meta({
      description:
        'User ids of the users who may approve or reject at this step (at least one): an API key bound to one of them (its user_id) decides',
    }),
  })
  .meta({
    id: 'WorkflowApprovalStepInput',
    description: 'A step of approval; `step_id` is given by the server when absent',
  });

const approvalStepView = approvalStepInput
  .extend({
    step_id: objectIdSchema,
    approvers: z
      .array(userIdViewSchema)
      .max(1_000)
      .meta({ description: 'User ids of the users who may approve or reject at this step' }),
  })
  .meta({ id: 'WorkflowApprovalStep', description: 'A step of approval' });

/** A step of a workflow approval as written. */
export type WorkflowApprovalStepInput = z.infer<typeof approvalStepInput>;

/** The filters of a workflow approval: product list filters, each a value or a list of values. */
const filtersSchema = productFiltersSchema(
  'Product list filters (as GET /products takes them: brand_id, family_id, categories, attributes.<key>, _search…) a product must match to be governed by this approval; empty: none. Attribute filters are checked when given: an unknown key is a 400, an attribute hidden from your user (an attribute group lists you among its not_allowed_users) a 403',
);

const productIds = field.of('id[]', { input: idSetSchema('product'), view: z.array(objectIdSchema).max(1_000) });

/**
 * Workflow approvals: the steps a product change is approved in, and which products they govern
 * (`included_products`, else `filters`, else the default one; `exclude_products` always wins). Named
 * by `code`; at most one live workflow approval is the default.
 */
export const WorkflowApproval = defineResource({
  collection: 'workflow_approvals',
  description: 'Workflow approval: the steps a product change is approved in',
  fields: {
    filters: field.of('object', { input: filtersSchema }).default({}),
    exclude_products: productIds.default([]),
    included_products: productIds.default([]),
    steps: field
      .of('array', { input: z.array(approvalStepInput).max(50), view: z.array(approvalStepView).max(50) })
      .default([]),
    code: codeField,
    name: plainNameField,
    description: plainDescriptionField,
    tags: tagsField,
    enabled: requiredEnabledField,
    default: defaultFlagField('workflow approval'),
  },
  refine(value, ctx) {
    const orders = new Map<number, number>();
    ((value.steps ?? []) as WorkflowApprovalStepInput[]).forEach((s, i) => {
      const earlier = orders.get(s.order);
      if (earlier !== undefined)
        ctx.addIssue({ code: 'custom', path: ['steps', i, 'order'], message: `repeats the order of steps.${earlier}` });
      else orders.set(s.order, i);
    });
  },
});

/** A workflow approval as the API shows it. */
export type WorkflowApprovalView = z.infer<typeof WorkflowApproval.schemas.view>;
/** Writable fields of a workflow approval. */
export type WorkflowApprovalInput = z.infer<typeof WorkflowApproval.schemas.input>;
