import { z } from 'zod';
import { codeSchema, codeViewSchema } from './codes';
import { dateTimeSchema, objectIdSchema } from './common';
import { field } from './declare/field';
import { defineResource } from './declare/resource';
import { idSetSchema, nameField, tagsField, taxonomyCodeSchema, translatedField } from './taxonomy';

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
  .meta({
    id: 'ProductCatalog',
    description: 'A catalog the product is in, and the users groups that may see it there',
  });

/** One publication of the product to a channel. */
export const publishmentSchema = z
  .strictObject({
    channel: z.string().min(1).max(200).meta({ example: 'shop' }),
    published_at: dateTimeSchema,
    status: z.string().min(1).max(50).meta({ example: 'PUBLISHED' }),
  })
  .meta({ id: 'ProductPublishment', description: 'One publication of the product to a channel' });

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

/** Completeness per language: the share (0–100) of the required applicable attributes that are filled. */
export const completenessSchema = z
  .record(z.string().max(35), z.number().int().min(0).max(100).meta({ format: 'int32' }))
  .meta({
    id: 'ProductCompleteness',
    description: 'Per language of name and description: percentage of required applicable attributes filled',
    example: { pt: 100, en: 50 },
  });

/** The products filter on the lowest completeness across languages (`completeness_min_lt=100`). */
export const COMPLETENESS_MIN_FILTER = 'completeness_min';

/**
 * The products filter on catalog membership: `catalog_id=<id>` matches the products whose
 * `catalogs` hold that catalog; `_in`, `_ne`, `_nin` take several ids (in any of them, not in it,
 * in none of them) and `_exists` tells products in some catalog from those in none. Run by the catalog.
 */
export const CATALOG_ID_FILTER = 'catalog_id';

/** A reference to another record by id, described where it is written. */
const reference = (description: string) =>
  field.of('id', { input: objectIdSchema.meta({ description }), patch: objectIdSchema, view: objectIdSchema });

/** A set of ids of one collection, described where it is written. */
const idSet = (what: string, description: string) =>
  field
    .of('id[]', {
      input: idSetSchema(what).meta({ description }),
      patch: idSetSchema(what),
      view: z.array(objectIdSchema).max(1_000),
    })
    .default([]);

/** What the catalog computes on every write from the attributes that apply, by key. */
const snapshot = (description: string) =>
  field
    .computed('object', z.record(z.string().max(100), z.unknown()).meta({ description }))
    .default({})
    .listed(false);

/**
 * Products: named by `code`, searched by code and every language of name. `completeness_min` is
 * the lowest completeness over the product's languages, stored on write. `expand=brand,family,
 * product` embed beside the id; `categories`, `category_trees` and `attribute_groups` expand in
 * place (the ids become the records); `catalogs` links get their record inside
 * (`catalogs[].catalog`), as they carry `user_groups` of their own.
 */
export const Product = defineResource({
  collection: 'products',
  description: 'Product with its computed completeness',
  inputDescription: 'Product, as written by a caller',
  patchDescription: 'JSON merge patch (RFC 7396) of a product',
  fields: {
    family_id: reference('A live family').expands('family', 'families'),
    brand_id: reference('A live brand').expands('brand', 'brands'),
    fulfilled: field.of('number', { input: fulfilledSchema, view: z.number() }),
    categories: idSet('category', 'Live category ids, each once').expands('categories', 'categories'),
    category_trees: idSet('category tree', 'Live category tree ids, each once').expands(
      'category_trees',
      'category_trees',
    ),
    product_id: reference(
      'Another live product; required for a variation (its parent, which is not a variation)',
    ).expands('product', 'products'),
    catalogs: field
      .of('array', { input: catalogsSchema, view: z.array(productCatalogSchema).max(1_000) })
      .default([])
      .expands('catalogs', 'catalogs'),
    attribute_groups: idSet('attribute group', 'Live attribute group ids, each once').expands(
      'attribute_groups',
      'attribute_groups',
    ),
    attributes_schema_snapshot: snapshot(
      'The definitions of the applicable attributes the values were checked against, by key',
    ),
    attributes_options_snapshot: snapshot(
      'The options the select and multiselect values named, by key: [{value, label}]',
    ),
    code: field
      .of('string', {
        input: codeSchema({ description: 'Unique among live products', example: 'SKU-1001' }),
        patch: taxonomyCodeSchema,
        view: codeViewSchema(),
      })
      .required()
      .searchable()
      .normalized(),
    name: nameField,
    description: translatedField,
    image: field.of('string', { input: urlSchema, view: z.string().max(2_048) }),
    images: field
      .of('string[]', { input: z.array(urlSchema).max(100), view: z.array(z.string().max(2_048)).max(100) })
      .default([]),
    attributes: field
      .of('object', {
        input: productAttributesSchema,
        patch: z
          .record(z.string().max(100), z.unknown())
          .meta({ description: 'Values to set, or remove (null), by attribute key' }),
        view: z.record(z.string().max(100), z.unknown()),
      })
      .default({}),
    enabled: field.flag('Active (default true)').default(true),
    tags: tagsField,
    type: field.of('string', { input: typeSchema }).required(),
    product_approval: reference('Approval flow the product belongs to'),
    last_approval_at: field.of('date', { input: dateTimeSchema }),
    published: field.flag('Published (default false)').default(false),
    last_publishment_id: field.of('string', {
      input: z.string().min(1).max(100).meta({ description: 'Identifier or timestamp of the last publish action' }),
      patch: z.string().min(1).max(100),
      view: z.string().max(100),
    }),
    last_published_at: field.of('date', { input: dateTimeSchema }),
    publishments: field
      .of('array', { input: z.array(publishmentSchema).max(1_000) })
      .default([])
      .listed(false),
    completeness: field.computed('object', completenessSchema).default({}),
  },
  filters: { [COMPLETENESS_MIN_FILTER]: { type: 'number' }, [CATALOG_ID_FILTER]: { type: 'id[]' } },
});

/** Product schemas: what a caller writes, patches and reads. */
export const productSchemas = Product.schemas;

/** A product as the API shows it. */
export type ProductView = z.infer<typeof productSchemas.view>;
/** Writable fields of a product. */
export type ProductInput = z.infer<typeof productSchemas.input>;

/** What a bulk upsert did with an item. */
export const BULK_STATUSES = ['created', 'updated', 'unchanged', 'failed'] as const;

/** One item's outcome in a bulk upsert. */
export const bulkItemResultSchema = z
  .strictObject({
    index: z.number().int().min(0).meta({ format: 'int32', maximum: BULK_MAX_ITEMS }),
    code: codeViewSchema().optional(),
    _id: objectIdSchema.optional(),
    status: z.enum(BULK_STATUSES).meta({
      description:
        'created; updated; unchanged (the item holds what is stored: nothing written, no event, same version); failed (see error)',
    }),
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
  .meta({
    id: 'ProductBulkItemResult',
    description: 'What became of one item of a bulk upsert, in the order of the request',
  });

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
    .meta({ id: 'ProductBulkUpsert', description: 'Products to create or update by code, each on its own' }),
  result: z.strictObject({ data: z.array(bulkItemResultSchema).max(BULK_MAX_ITEMS) }).meta({
    id: 'ProductBulkResult',
    description: 'The result of each item of a bulk upsert, in the order of the request',
  }),
};

/** One item's outcome in a bulk upsert. */
export type BulkItemResult = z.infer<typeof bulkItemResultSchema>;

/** Fields of the products list: what can be filtered, sorted, searched and expanded. */
export const productListDecl = Product.listDecl;
