import { z } from 'zod';
import { declareResource } from '@pim/query';
import { dateTimeSchema, objectIdSchema } from './common';
import {
  idSetSchema,
  nameSchema,
  tagsSchema,
  taxonomyCodeSchema,
  translatePatchSchema,
  translateSchema,
} from './taxonomy';

// Products. The shape of `attributes` values depends on the attributes that apply
// to each product, so the schemas only check that it is an object keyed by attribute key; the
// catalog checks every value against its attribute on every write (docs/platform/rules.md: attribute types).

/** ProductTypeEnum (docs/platform/rules.md: attribute types). */
export const PRODUCT_TYPES = ['simple', 'variation', 'kit', 'service'] as const;

/** One of the product types. */
export type ProductType = (typeof PRODUCT_TYPES)[number];

/** Most products one bulk upsert takes (docs/platform/rules.md: REST shape). */
export const BULK_MAX_ITEMS = 1_000;

const urlSchema = z
  .url({ protocol: /^https?$/ })
  .max(2_048)
  .meta({ example: 'https://cdn.example.com/p/1.jpg' });

/** A catalog the product is in, and the users groups that may see it there. */
export const productCatalogSchema = z
  .strictObject({
    _id: objectIdSchema.meta({ description: 'A live catalog' }),
    user_groups: z
      .array(objectIdSchema)
      .max(1_000)
      .meta({ description: 'Users groups that may access the product in this catalog' }),
  })
  .meta({ id: 'ProductCatalog' });

/** One publication of the product to a channel. */
export const publishmentSchema = z
  .strictObject({
    channel: z.string().min(1).max(200).meta({ example: 'shop' }),
    published_at: dateTimeSchema,
    status: z.string().min(1).max(50).meta({ example: 'PUBLISHED' }),
  })
  .meta({ id: 'ProductPublishment' });

const catalogsSchema = z
  .array(productCatalogSchema)
  .max(1_000)
  .refine((c) => new Set(c.map((x) => x._id)).size === c.length, 'must name each catalog once')
  .meta({ description: 'Catalogs the product is published in, each once' });

/** A product's attribute values: attribute key → value (its shape is its attribute's type). */
export const productAttributesSchema = z
  .record(z.string().max(100), z.unknown())
  .refine((o) => Object.keys(o).length <= 2_000, 'must have at most 2000 attributes')
  .meta({
    description:
      'Values keyed by attribute key; each is checked against its attribute (type, type_config, options, association, unique, required)',
    example: { voltage: 220 },
  });

const typeSchema = z
  .enum(PRODUCT_TYPES)
  .meta({ description: 'simple, variation (a SKU: product_id names its parent), kit or service' });
const fulfilledSchema = z
  .number()
  .min(0)
  .max(1e15)
  .meta({ description: 'Quantity already fulfilled or processed', example: 0 });

const inputShape = {
  family_id: objectIdSchema.optional().meta({ description: 'A live family' }),
  brand_id: objectIdSchema.optional().meta({ description: 'A live brand' }),
  fulfilled: fulfilledSchema.optional(),
  categories: idSetSchema('category').optional().meta({ description: 'Live category ids, each once' }),
  category_trees: idSetSchema('category tree').optional().meta({ description: 'Live category tree ids, each once' }),
  product_id: objectIdSchema
    .optional()
    .meta({ description: 'Another live product; required for a variation (its parent, which is not a variation)' }),
  catalogs: catalogsSchema.optional(),
  attribute_groups: idSetSchema('attribute group')
    .optional()
    .meta({ description: 'Live attribute group ids, each once' }),
  code: taxonomyCodeSchema.meta({ description: 'Unique among live products', example: 'SKU-1001' }),
  name: nameSchema,
  description: translateSchema.optional(),
  image: urlSchema.optional(),
  images: z.array(urlSchema).max(100).optional(),
  attributes: productAttributesSchema.optional(),
  enabled: z.boolean().optional().meta({ description: 'Active (default true)' }),
  tags: tagsSchema.optional(),
  type: typeSchema,
  product_approval: objectIdSchema.optional().meta({ description: 'Approval flow the product belongs to' }),
  last_approval_at: dateTimeSchema.optional(),
  published: z.boolean().optional().meta({ description: 'Published (default false)' }),
  last_publishment_id: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .meta({ description: 'Identifier or timestamp of the last publish action' }),
  last_published_at: dateTimeSchema.optional(),
  publishments: z.array(publishmentSchema).max(1_000).optional(),
};

const optional = <T extends z.ZodType>(s: T) => s.nullable().optional();

/** Completeness per language: the share (0–100) of the required applicable attributes that are filled. */
export const completenessSchema = z
  .record(z.string().max(35), z.number().int().min(0).max(100).meta({ format: 'int32' }))
  .meta({
    id: 'ProductCompleteness',
    description: 'Per language of name and description: percentage of required applicable attributes filled',
    example: { pt: 100, en: 50 },
  });

/** Product schemas: what a caller writes, patches and reads. */
export const productSchemas = {
  input: z.strictObject(inputShape).meta({ id: 'ProductInput', description: 'Product, as written by a caller' }),
  patch: z
    .strictObject({
      family_id: optional(objectIdSchema),
      brand_id: optional(objectIdSchema),
      fulfilled: optional(fulfilledSchema),
      categories: optional(idSetSchema('category')),
      category_trees: optional(idSetSchema('category tree')),
      product_id: optional(objectIdSchema),
      catalogs: optional(catalogsSchema),
      attribute_groups: optional(idSetSchema('attribute group')),
      code: taxonomyCodeSchema.optional(),
      name: translatePatchSchema(z.string().min(1).max(1_000)).optional(),
      description: translatePatchSchema(z.string().max(10_000)).nullable().optional(),
      image: optional(urlSchema),
      images: optional(z.array(urlSchema).max(100)),
      attributes: z
        .record(z.string().max(100), z.unknown())
        .nullable()
        .optional()
        .meta({ description: 'Values to set, or remove (null), by attribute key' }),
      enabled: optional(z.boolean()),
      tags: optional(tagsSchema),
      type: typeSchema.optional(),
      product_approval: optional(objectIdSchema),
      last_approval_at: optional(dateTimeSchema),
      published: optional(z.boolean()),
      last_publishment_id: optional(z.string().min(1).max(100)),
      last_published_at: optional(dateTimeSchema),
      publishments: optional(z.array(publishmentSchema).max(1_000)),
    })
    .meta({ id: 'ProductPatch', description: 'JSON merge patch (RFC 7396) of a product' }),
  view: z
    .strictObject({
      _id: objectIdSchema,
      family_id: objectIdSchema.optional(),
      brand_id: objectIdSchema.optional(),
      fulfilled: z.number().optional(),
      categories: z.array(objectIdSchema).max(1_000),
      category_trees: z.array(objectIdSchema).max(1_000),
      product_id: objectIdSchema.optional(),
      catalogs: z.array(productCatalogSchema).max(1_000),
      attribute_groups: z.array(objectIdSchema).max(1_000),
      attributes_schema_snapshot: z
        .record(z.string().max(100), z.unknown())
        .meta({ description: 'The definitions of the applicable attributes the values were checked against, by key' }),
      attributes_options_snapshot: z
        .record(z.string().max(100), z.unknown())
        .meta({ description: 'The options the select and multiselect values named, by key: [{value, label}]' }),
      code: z.string().max(100),
      name: translateSchema,
      description: translateSchema,
      image: z.string().max(2_048).optional(),
      images: z.array(z.string().max(2_048)).max(100),
      attributes: z.record(z.string().max(100), z.unknown()),
      enabled: z.boolean(),
      tags: z.array(z.string().max(100)).max(100),
      type: typeSchema,
      product_approval: objectIdSchema.optional(),
      last_approval_at: dateTimeSchema.optional(),
      published: z.boolean(),
      last_publishment_id: z.string().max(100).optional(),
      last_published_at: dateTimeSchema.optional(),
      publishments: z.array(publishmentSchema).max(1_000),
      completeness: completenessSchema,
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
    .meta({ id: 'Product', description: 'Product with its computed completeness' }),
};

/** A product as the API shows it. */
export type ProductView = z.infer<typeof productSchemas.view>;
/** Writable fields of a product. */
export type ProductInput = z.infer<typeof productSchemas.input>;

/** One item's outcome in a bulk upsert. */
export const bulkItemResultSchema = z
  .strictObject({
    index: z.number().int().min(0).meta({ format: 'int32', maximum: BULK_MAX_ITEMS }),
    code: z.string().max(100).optional(),
    _id: objectIdSchema.optional(),
    status: z.enum(['created', 'updated', 'failed']),
    error: z
      .strictObject({
        code: z.number().int().meta({ format: 'int32', minimum: 400, maximum: 599 }),
        kind: z.string().max(40),
        name: z.string().max(60),
        title: z.string().max(200),
        message: z.string().max(10_000),
        solution: z.string().max(2_000),
        details: z
          .array(z.strictObject({ field: z.string().max(300), message: z.string().max(2_000) }))
          .max(10_000)
          .optional(),
      })
      .optional()
      .meta({ description: 'Why the item was not stored' }),
  })
  .meta({ id: 'ProductBulkItemResult' });

/** The bulk upsert's body and answer. */
export const productBulkSchemas = {
  body: z
    .strictObject({
      items: z
        .array(
          z.record(z.string().max(100), z.unknown()).meta({
            description: 'A product input (ProductInput); checked on its own, its problems reported in its result',
          }),
        )
        .min(1)
        .max(BULK_MAX_ITEMS)
        .meta({ description: `Up to ${BULK_MAX_ITEMS} product inputs; each is upserted by code` }),
    })
    .meta({ id: 'ProductBulkUpsert' }),
  result: z.strictObject({ data: z.array(bulkItemResultSchema).max(BULK_MAX_ITEMS) }).meta({ id: 'ProductBulkResult' }),
};

/** One item's outcome in a bulk upsert. */
export type BulkItemResult = z.infer<typeof bulkItemResultSchema>;

/** The products filter on the lowest completeness across languages (`completeness_min_lt=100`). */
export const COMPLETENESS_MIN_FILTER = 'completeness_min';

/**
 * Fields of the products list: `_search` covers code and every language of name;
 * `completeness_min` is the lowest completeness over the product's languages, stored on write.
 * `expand=brand,family,product` embed beside the id; `categories`, `category_trees` and
 * `attribute_groups` expand in place (the ids become the records); `catalogs` links get their
 * record inside (`catalogs[].catalog`), as they carry `user_groups` of their own.
 */
export const productListDecl = declareResource({
  collection: 'products',
  fields: {
    _id: { type: 'id' },
    family_id: { type: 'id', expand: { as: 'family', collection: 'families' } },
    brand_id: { type: 'id', expand: { as: 'brand', collection: 'brands' } },
    fulfilled: { type: 'number' },
    categories: { type: 'id[]', expand: { as: 'categories', collection: 'categories' } },
    category_trees: { type: 'id[]', expand: { as: 'category_trees', collection: 'category_trees' } },
    product_id: { type: 'id', expand: { as: 'product', collection: 'products' } },
    catalogs: { type: 'array', expand: { as: 'catalogs', collection: 'catalogs' } },
    attribute_groups: { type: 'id[]', expand: { as: 'attribute_groups', collection: 'attribute_groups' } },
    code: { type: 'string', required: true, searchable: true },
    name: { type: 'translate', required: true, searchable: true },
    description: { type: 'translate' },
    image: { type: 'string' },
    images: { type: 'string[]' },
    attributes: { type: 'object' },
    enabled: { type: 'boolean' },
    tags: { type: 'string[]' },
    type: { type: 'string', required: true },
    product_approval: { type: 'id' },
    last_approval_at: { type: 'date' },
    published: { type: 'boolean' },
    last_publishment_id: { type: 'string' },
    last_published_at: { type: 'date' },
    completeness: { type: 'object' },
    [COMPLETENESS_MIN_FILTER]: { type: 'number' },
    version: { type: 'number' },
    created_at: { type: 'date' },
    updated_at: { type: 'date' },
    created_by_name: { type: 'string' },
  },
});
