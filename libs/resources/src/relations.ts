import { z } from 'zod';
import { declareResource } from '@pim/query';
import { dateTimeSchema, objectIdSchema } from './common';

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

const listsShape = {
  kit_products: list(relationItemSchemas.kit_products, 'kit_products').optional(),
  kit_services: list(relationItemSchemas.kit_services, 'kit_services').optional(),
  association: list(relationItemSchemas.association, 'association').optional(),
  eligible_service_products: list(
    relationItemSchemas.eligible_service_products,
    'eligible_service_products',
  ).optional(),
  ineligible_service_products: list(
    relationItemSchemas.ineligible_service_products,
    'ineligible_service_products',
  ).optional(),
  eligible_service_categories: list(
    relationItemSchemas.eligible_service_categories,
    'eligible_service_categories',
  ).optional(),
  ineligible_service_categories: list(
    relationItemSchemas.ineligible_service_categories,
    'ineligible_service_categories',
  ).optional(),
};

const typeSchema = z
  .enum(PRODUCT_RELATION_TYPES)
  .meta({ description: 'What the relation holds; the list of the same name carries its items' });
const productIdSchema = objectIdSchema.meta({ description: 'A live product; one live relation per product and type' });

/** Exactly the list `type` names; a product never in its own list. */
function checkLists(
  r: Record<string, unknown> & { type?: string; product_id?: string | null },
  ctx: z.RefinementCtx,
): void {
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

const nullable = <T extends z.ZodType>(s: T) => s.nullable().optional();

/** Product relation schemas: what a caller writes, patches and reads. */
export const productRelationSchemas = {
  input: z
    .strictObject({ type: typeSchema, product_id: productIdSchema, ...listsShape })
    .superRefine(checkLists)
    .meta({
      id: 'ProductRelationInput',
      description: 'Product relation, as written by a caller: type, product_id and the list type names',
    }),
  patch: z
    .strictObject({
      type: typeSchema.optional(),
      product_id: productIdSchema.optional(),
      ...Object.fromEntries(Object.entries(listsShape).map(([k, s]) => [k, nullable(s.unwrap())])),
    })
    .meta({
      id: 'ProductRelationPatch',
      description: 'JSON merge patch (RFC 7396) of a product relation; the result must be a valid input',
    }),
  view: z
    .strictObject({
      _id: objectIdSchema,
      type: typeSchema,
      product_id: objectIdSchema,
      kit_products: z.array(relationItemSchemas.kit_products).max(RELATION_MAX_ITEMS).optional(),
      kit_services: z.array(relationItemSchemas.kit_services).max(RELATION_MAX_ITEMS).optional(),
      association: z.array(relationItemSchemas.association).max(RELATION_MAX_ITEMS).optional(),
      eligible_service_products: z
        .array(relationItemSchemas.eligible_service_products)
        .max(RELATION_MAX_ITEMS)
        .optional(),
      ineligible_service_products: z
        .array(relationItemSchemas.ineligible_service_products)
        .max(RELATION_MAX_ITEMS)
        .optional(),
      eligible_service_categories: z
        .array(relationItemSchemas.eligible_service_categories)
        .max(RELATION_MAX_ITEMS)
        .optional(),
      ineligible_service_categories: z
        .array(relationItemSchemas.ineligible_service_categories)
        .max(RELATION_MAX_ITEMS)
        .optional(),
      version: z.number().int().meta({
        description: 'Incremented on every write; sent as ETag',
        format: 'int32',
        minimum: 1,
        maximum: 2_147_483_647,
        example: 3,
      }),
      created_at: dateTimeSchema,
      updated_at: dateTimeSchema,
      created_by_name: z.string().max(200).optional(),
    })
    .meta({
      id: 'ProductRelation',
      description: 'Product relation: only the list its type names is present',
    }),
};

/** A product relation as the API shows it. */
export type ProductRelationView = z.infer<typeof productRelationSchemas.view>;
/** Writable fields of a product relation. */
export type ProductRelationInput = z.infer<typeof productRelationSchemas.input>;
/** One item of a relation's list. */
export type ProductRelationItem = { id: string; quantity?: number; category_tree_id?: string };

/** Fields of the product relations list: filter by `product_id` and `type` (nothing is searchable); `expand=product`. */
export const productRelationListDecl = declareResource({
  collection: 'product_relations',
  fields: {
    _id: { type: 'id' },
    type: { type: 'string', required: true },
    product_id: { type: 'id', required: true, expand: { as: 'product', collection: 'products' } },
    version: { type: 'number' },
    created_at: { type: 'date' },
    updated_at: { type: 'date' },
    created_by_name: { type: 'string' },
  },
});
