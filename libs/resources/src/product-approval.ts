import { z } from 'zod';
import { userIdViewSchema } from './codes';
import { objectIdSchema, dateTimeSchema } from './common';
import { field } from './declare/field';
import { defineResource } from './declare/resource';
import { idSetSchema } from './taxonomy';

// Product approvals: a change request on one product (its kit, service eligibility and attribute
// groups), decided step by step by the approvers of the workflow approval that governs the
// product, and applied to the catalog once the last step approves.

/** A product approval's state: decided by its steps, in order. */
export const PRODUCT_APPROVAL_STATUSES = ['pending', 'approved', 'rejected'] as const;
/** Where the application of an approved change to the catalog stands. */
export const APPLICATION_STATUSES = ['pending', 'applied', 'failed'] as const;

const MAX_ITEMS = 1_000;

const eachIdOnce = (items: unknown[]) => new Set(items.map((i) => (i as { id: string }).id)).size === items.length;
const listOf = <T extends z.ZodObject>(item: T, description: string) =>
  z.array(item).max(MAX_ITEMS).refine(eachIdOnce, 'must name each id once').meta({ description });

const productItem = z
  .strictObject({ id: objectIdSchema })
  .meta({ id: 'ProductApprovalProduct', description: 'A live product' });
const categoryItem = z
  .strictObject({ id: objectIdSchema })
  .meta({ id: 'ProductApprovalCategory', description: 'A category' });
const treeCategoryItem = z
  .strictObject({
    id: objectIdSchema,
    category_tree_id: objectIdSchema.meta({ description: 'The tree the category is in' }),
  })
  .meta({ id: 'ProductApprovalTreeCategory', description: 'A live category and its tree' });
const kitItem = z
  .strictObject({
    id: objectIdSchema,
    quantity: z.number().gt(0).max(1e9).meta({ description: 'How many the kit holds, above zero', example: 2 }),
  })
  .meta({ id: 'ProductApprovalKitItem', description: 'A product and how many of it the kit holds' });

/** A proposed list: empty when not given. */
const proposed = <T extends z.ZodObject>(item: T, description: string) =>
  field
    .of('array', { input: listOf(item, description), view: z.array(item).max(MAX_ITEMS) })
    .default([])
    .listed(false);

/** The proposed changes, each an "add" list and (but for attribute groups) a "remove" list of one relation. */
export const PROPOSED_CHANGES = {
  kit_products: 'kit_products',
  disassociate_kit_products: 'kit_products',
  kit_services: 'kit_services',
  disassociate_kit_services: 'kit_services',
  eligible_service_products: 'eligible_service_products',
  disassociate_eligible_service_products: 'eligible_service_products',
  ineligible_service_products: 'ineligible_service_products',
  disassociate_ineligible_service_products: 'ineligible_service_products',
  eligible_service_categories: 'eligible_service_categories',
  disassociate_eligible_service_categories: 'eligible_service_categories',
  ineligible_service_categories: 'ineligible_service_categories',
  disassociate_ineligible_service_categories: 'ineligible_service_categories',
} as const;

/** One of the proposed lists. */
export type ProposedList = keyof typeof PROPOSED_CHANGES;

const stepSchema = z
  .strictObject({
    step_id: objectIdSchema,
    name: z.string().max(200),
    order: z.number().int().min(0).max(1_000).meta({ format: 'int32' }),
    approvers: z.array(userIdViewSchema).max(1_000),
  })
  .meta({
    id: 'ProductApprovalStep',
    description: 'A step of the governing workflow approval, as it was when the product approval was created',
  });

const decisionSchema = z
  .strictObject({
    step: objectIdSchema.meta({ description: 'The step_id of the step decided' }),
    order: z.number().int().min(0).max(1_000).meta({ format: 'int32' }),
    decision: z.enum(['approved', 'rejected']),
    comment: z.string().max(10_000).optional(),
    by: z.strictObject({ user_id: userIdViewSchema, user_name: z.string().max(200).optional() }),
    at: z.string().max(40).meta({ format: 'date-time' }),
  })
  .meta({ id: 'ProductApprovalDecision', description: 'A decision taken at a step' });

const currentStepSchema = z
  .strictObject({
    step_id: objectIdSchema,
    name: z.string().max(200),
    order: z.number().int().min(0).max(1_000).meta({ format: 'int32' }),
  })
  .meta({ id: 'ProductApprovalCurrentStep', description: 'The step whose approvers decide next (while pending)' });

const applicationErrorSchema = z
  .strictObject({
    code: z.number().int().min(400).max(599).meta({ format: 'int32' }),
    title: z.string().max(200),
    message: z.string().max(10_000),
    solution: z.string().max(2_000).optional(),
    details: z
      .array(z.strictObject({ field: z.string().max(300), message: z.string().max(2_000) }))
      .max(1_000)
      .optional(),
  })
  .meta({ id: 'ProductApprovalApplicationError', description: 'Why the catalog refused the changes' });

const applicationSchema = z
  .strictObject({
    status: z.enum(APPLICATION_STATUSES).meta({
      description:
        'pending: the changes are on their way to the catalog; applied: they are in it; failed: the catalog refused them and nothing was changed',
    }),
    applied_at: z.string().max(40).optional().meta({ format: 'date-time' }),
    error: applicationErrorSchema.optional(),
  })
  .meta({ id: 'ProductApprovalApplication', description: 'The application of the approved changes to the catalog' });

/** Input rules across fields: something is proposed, nothing is both added and removed, no product names itself. */
function checkChanges(value: Record<string, unknown>, ctx: z.RefinementCtx): void {
  const lists = Object.keys(PROPOSED_CHANGES) as ProposedList[];
  const given = (name: string) => ((value[name] ?? []) as { id: string }[]) ?? [];
  const any = lists.some((l) => given(l).length > 0) || ((value.attribute_groups ?? []) as string[]).length > 0;
  if (!any)
    ctx.addIssue({
      code: 'custom',
      path: [],
      message: 'proposes no change: give at least one of the kit, eligibility or attribute_groups lists',
    });
  for (const list of lists) {
    if (list.startsWith('disassociate_')) continue;
    const removed = new Set(given(`disassociate_${list}`).map((i) => i.id));
    given(list).forEach((item, i) => {
      if (removed.has(item.id))
        ctx.addIssue({ code: 'custom', path: [list, i, 'id'], message: `is also in disassociate_${list}` });
    });
    if (!list.endsWith('_categories'))
      given(list).forEach((item, i) => {
        if (item.id === value.product_id)
          ctx.addIssue({ code: 'custom', path: [list, i, 'id'], message: "must not be the approval's own product_id" });
      });
  }
}

/**
 * Product approvals: a change request on one product, decided by the steps of the workflow
 * approval that governs it (its snapshot taken at creation) and applied to the catalog after the
 * last step approves. Everything but the proposal is read-only: the owner computes it.
 */
export const ProductApproval = defineResource({
  collection: 'product_approvals',
  description: 'Product approval: a change to one product, approved step by step',
  inputDescription: 'Product approval, as written by a caller: the product and the changes proposed for it',
  refine: checkChanges,
  fields: {
    product_id: field
      .of('id', {
        input: objectIdSchema.meta({ description: 'The live product the changes are for' }),
        view: objectIdSchema,
      })
      .required(),
    product_approvals: field
      .of('id[]', {
        input: idSetSchema('product approval').meta({
          description: 'Other live product approvals this one relates to',
        }),
        view: z.array(objectIdSchema).max(1_000),
      })
      .default([]),
    kit_products: proposed(kitItem, 'Products to put in the kit (an id already there takes this quantity)'),
    disassociate_kit_products: proposed(kitItem, 'Products to take out of the kit (whatever quantity it holds)'),
    kit_services: proposed(kitItem, 'Services to put in the kit (an id already there takes this quantity)'),
    disassociate_kit_services: proposed(kitItem, 'Services to take out of the kit'),
    eligible_service_products: proposed(productItem, 'Products to add to the eligible service products'),
    disassociate_eligible_service_products: proposed(productItem, 'Products to remove from them'),
    ineligible_service_products: proposed(productItem, 'Products to add to the ineligible service products'),
    disassociate_ineligible_service_products: proposed(productItem, 'Products to remove from them'),
    eligible_service_categories: proposed(treeCategoryItem, 'Categories to add to the eligible service categories'),
    disassociate_eligible_service_categories: proposed(categoryItem, 'Categories to remove from them'),
    ineligible_service_categories: proposed(treeCategoryItem, 'Categories to add to the ineligible service categories'),
    disassociate_ineligible_service_categories: proposed(categoryItem, 'Categories to remove from them'),
    attribute_groups: field
      .of('id[]', {
        input: idSetSchema('attribute group').meta({ description: "Attribute groups to add to the product's" }),
        view: z.array(objectIdSchema).max(1_000),
      })
      .default([]),
    workflow_approval_id: field
      .computed('id', objectIdSchema.meta({ description: 'The workflow approval that governs the product' }))
      .shown(),
    status: field
      .computed(
        'string',
        z
          .enum(PRODUCT_APPROVAL_STATUSES)
          .meta({ description: 'pending until the last step approves or a step rejects' }),
      )
      .shown(),
    current_step: field.computed('object', currentStepSchema).listed(false),
    steps: field.computed('array', z.array(stepSchema).max(50)).shown().listed(false),
    decisions: field.computed('array', z.array(decisionSchema).max(50)).shown().listed(false),
    decided_at: field.computed('date', dateTimeSchema.meta({ description: 'When it was approved or rejected' })),
    application: field.computed('object', applicationSchema).listed(false),
  },
});

/** A product approval as the API shows it. */
export type ProductApprovalView = z.infer<typeof ProductApproval.schemas.view>;
/** Writable fields of a product approval. */
export type ProductApprovalInput = z.infer<typeof ProductApproval.schemas.input>;
/** A step of a product approval (the governing workflow approval's, as it was). */
export type ProductApprovalStep = z.infer<typeof stepSchema>;
/** A decision taken at a step. */
export type ProductApprovalDecision = z.infer<typeof decisionSchema>;
/** Where the application to the catalog stands. */
export type ProductApprovalApplication = z.infer<typeof applicationSchema>;

/** The body of approve and reject: an optional comment kept with the decision. */
export const decisionBodySchema = z
  .strictObject({
    comment: z.string().trim().max(10_000).optional().meta({ description: 'Why; kept with the decision' }),
  })
  .meta({ id: 'ProductApprovalDecisionInput', description: 'A decision at the current step' });
