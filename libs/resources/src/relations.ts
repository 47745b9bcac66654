import { z } from 'zod';
import { objectIdSchema } from './common';
import { field } from './declare/field';
import { defineResource } from './declare/resource';

// Product relations: one product's kit parts, associations or service
// eligibility. A relation holds exactly one list, the one its `type` names; the catalog checks
// that the records it names are live and fit the type.

/** ProductRelationTypeEnum; each is also the name of the list it holds. */
export const PRODUCT_RELATION_TYPES = [
  'association',
  'kit_products',
  'kit_services',
  'eligible_service_products',
  'ineligible_service_products',
  'eligible_service_categories',
  'ineligible_service_categories',
] as const;

/** One of the relation types. */
export type ProductRelationType = (typeof PRODUCT_RELATION_TYPES)[number];

/**
 * The service eligibility types: which service products and categories may (or may not) be sold
 * with a product. What an eligibility_services export writes and an import of its rows sets.
 */
export const SERVICE_ELIGIBILITY_TYPES = [
  'eligible_service_products',
  'ineligible_service_products',
  'eligible_service_categories',
  'ineligible_service_categories',
] as const satisfies readonly ProductRelationType[];

/** One of the service eligibility types. */
export type ServiceEligibilityType = (typeof SERVICE_ELIGIBILITY_TYPES)[number];

/** Relation types whose items name products (the others name categories). */
export const PRODUCT_ITEM_TYPES: readonly ProductRelationType[] = [
  'association',
  'kit_products',
  'kit_services',
  'eligible_service_products',
  'ineligible_service_products',
];

/** Most items one relation holds. */
export const RELATION_MAX_ITEMS = 1_000;

const quantitySchema = z.number().gt(0).max(1e9).meta({ description: 'How many, above zero', example: 2 });
const idItem = z.strictObject({ id: objectIdSchema });
const quantityItem = z.strictObject({ id: objectIdSchema, quantity: quantitySchema });
const treeItem = z.strictObject({
  id: objectIdSchema,
  category_tree_id: objectIdSchema.meta({ description: 'The tree of the category' }),
});

const productItem = idItem.meta({ id: 'ProductRelationProduct', description: 'A live product' });

/** The item schema of each type's list. */
export const relationItemSchemas = {
  association: productItem,
  kit_products: quantityItem.meta({
    id: 'ProductRelationKitProduct',
    description: 'A live product that is not a service, and how many the kit holds',
  }),
  kit_services: quantityItem.meta({
    id: 'ProductRelationKitService',
    description: 'A live service product, and how many the kit holds',
  }),
  eligible_service_products: productItem,
  ineligible_service_products: productItem,
  eligible_service_categories: idItem.meta({ id: 'ProductRelationCategory', description: 'A live category' }),
  ineligible_service_categories: treeItem.meta({
    id: 'ProductRelationTreeCategory',
    description: 'A live category and its tree',
  }),
} satisfies Record<ProductRelationType, z.ZodObject>;

const list = <T extends z.ZodObject>(item: T, type: ProductRelationType) =>
  z
    .array(item)
    .min(1)
    .max(RELATION_MAX_ITEMS)
    .refine(
      (items) => new Set(items.map((i) => (i as { id: string }).id)).size === items.length,
      'must name each id once',
    )
    .meta({ description: `Required when type is ${type} (and only then); each id once` });

const typeSchema = z
  .enum(PRODUCT_RELATION_TYPES)
  .meta({ description: 'What the relation holds; the list of the same name carries its items' });
const productIdSchema = objectIdSchema.meta({ description: 'A live product; one live relation per product and type' });

/** Exactly the list `type` names; a product never in its own list. */
function checkLists(input: Record<string, unknown>, ctx: z.RefinementCtx): void {
  const r = input as Record<string, unknown> & { type?: string; product_id?: string | null };
  for (const t of PRODUCT_RELATION_TYPES) {
    const given = r[t] !== undefined && r[t] !== null;
    if (t === r.type && !given) ctx.addIssue({ code: 'custom', path: [t], message: `is required when type is ${t}` });
    if (t !== r.type && given)
      ctx.addIssue({ code: 'custom', path: [t], message: `is only allowed when type is ${t}` });
  }
  const items = r.type ? r[r.type] : undefined;
  if (Array.isArray(items) && PRODUCT_ITEM_TYPES.includes(r.type as ProductRelationType)) {
    items.forEach((item: { id?: string }, i) => {
      if (item?.id === r.product_id)
        ctx.addIssue({
          code: 'custom',
          path: [r.type!, i, 'id'],
          message: "must not be the relation's own product_id",
        });
    });
  }
}

/** The list of one type: present exactly when the relation's type names it, kept in the relation's `items`. */
const listField = <T extends ProductRelationType>(type: T) =>
  field
    .of('array', {
      input: list(relationItemSchemas[type], type),
      view: z.array(relationItemSchemas[type]).max(RELATION_MAX_ITEMS),
    })
    .listed(false)
    .stored(false);

/**
 * Product relations: filtered by `product_id` and `type` (nothing is searchable); `expand=product`.
 * The lists are no columns of their own: the catalog keeps the one the type names in `items`.
 */
export const ProductRelation = defineResource({
  collection: 'product_relations',
  description: 'Product relation: only the list its type names is present',
  inputDescription: 'Product relation, as written by a caller: type, product_id and the list type names',
  patchDescription: 'JSON merge patch (RFC 7396) of a product relation; the result must be a valid input',
  refine: checkLists,
  fields: {
    type: field.of('string', { input: typeSchema }).required(),
    product_id: field
      .of('id', { input: productIdSchema, view: objectIdSchema })
      .required()
      .expands('product', 'products'),
    kit_products: listField('kit_products'),
    kit_services: listField('kit_services'),
    association: listField('association'),
    eligible_service_products: listField('eligible_service_products'),
    ineligible_service_products: listField('ineligible_service_products'),
    eligible_service_categories: listField('eligible_service_categories'),
    ineligible_service_categories: listField('ineligible_service_categories'),
  },
});

/** Product relation schemas: what a caller writes, patches and reads. */
export const productRelationSchemas = ProductRelation.schemas;

/** A product relation as the API shows it. */
export type ProductRelationView = z.infer<typeof productRelationSchemas.view>;
/** Writable fields of a product relation. */
export type ProductRelationInput = z.infer<typeof productRelationSchemas.input>;
/** One item of a relation's list. */
export type ProductRelationItem = { id: string; quantity?: number; category_tree_id?: string };

/** Fields of the product relations list: filter by `product_id` and `type` (nothing is searchable); `expand=product`. */
export const productRelationListDecl = ProductRelation.listDecl;
