import { z } from 'zod';
import { dateTimeSchema, objectIdSchema } from './common';
import { timeZoneSchema } from './time-zones';
import { field } from './declare/field';
import { defineResource } from './declare/resource';
import { ATTRIBUTE_KEY_SOURCE } from './attributes';

// Imports: a spreadsheet uploaded, its columns mapped to product fields, then run through the
// catalog row by row in batches: products and attribute values through its bulk upsert, service
// eligibility through its product relations. The upload answers the file's worksheets and
// headers; a PATCH (or a template) maps the columns; `start` queues it for a worker.

/** Where an import stands. */
export const IMPORT_STATUSES = [
  'uploaded',
  'mapped',
  'queued',
  'processing',
  'completed',
  'completed_with_errors',
  'failed',
  'canceled',
] as const;
/** An import's state. */
export type ImportStatus = (typeof IMPORT_STATUSES)[number];
/** States an import never leaves. */
export const FINAL_IMPORT_STATUSES: readonly ImportStatus[] = [
  'completed',
  'completed_with_errors',
  'failed',
  'canceled',
];
/** The spreadsheet formats an import reads (ODS: OpenDocument, LibreOffice's own). */
export const IMPORT_FILE_TYPES = ['csv', 'xlsx', 'ods'] as const;

/** Product fields a column may be mapped to, besides the patterned ones (`name.<lang>`, `attributes.<key>`…). */
export const IMPORT_PLAIN_TARGETS = [
  'code',
  'type',
  'brand',
  'family',
  'categories',
  'tags',
  'enabled',
  'image',
  'images',
] as const;

/**
 * Columns of the platform's own exports that an import reads past: fields the platform keeps
 * (ids, dates, publication state, completeness), not a merchant, and the names and types the
 * per_attributes and eligibility_services reports write beside a code or a key (the record named
 * decides them). Mapped, they are skipped without a word, so an export imports back through a
 * mapping of each header to itself.
 */
export const IMPORT_SKIPPED_TARGETS = [
  '_id',
  'category_trees',
  'parent',
  'catalogs',
  'fulfilled',
  'published',
  'last_published_at',
  'created_at',
  'updated_at',
  'product_name',
  'attribute_name',
  'attribute_type',
  'item_name',
] as const;

/**
 * Columns of attribute rows (one row per product and attribute value, as a per_attributes export
 * writes them): the attribute's key, the language of a localizable text's value, and the value.
 */
export const IMPORT_ATTRIBUTE_ROW_TARGETS = ['attribute_key', 'language', 'value'] as const;

/**
 * Columns of eligibility rows (one row per product and service eligibility item, as an
 * eligibility_services export writes them): the relation type, the item by code (or by id), a
 * category's tree by code, and `eligible` and `item_type`, which must agree with the relation.
 */
export const IMPORT_ELIGIBILITY_ROW_TARGETS = [
  'relation',
  'item_code',
  'item_id',
  'category_tree',
  'eligible',
  'item_type',
] as const;

/**
 * What one row of an import stands for, decided by its mapping (`importRowShape`): a product
 * (`product_rows`), one attribute value of a product (`attribute_rows`), or one item of a
 * product's service eligibility (`eligibility_rows`).
 */
export const IMPORT_ROW_SHAPES = ['product_rows', 'attribute_rows', 'eligibility_rows'] as const;
/** One of the row shapes. */
export type ImportRowShape = (typeof IMPORT_ROW_SHAPES)[number];

/** Targets read in rows of every shape: the product's code, and its id and name (read past). */
const ANY_SHAPE_TARGETS: readonly string[] = ['code', '_id', 'product_name'];
const ATTRIBUTE_ROW_ONLY: readonly string[] = [...IMPORT_ATTRIBUTE_ROW_TARGETS, 'attribute_name', 'attribute_type'];
const ELIGIBILITY_ROW_ONLY: readonly string[] = [...IMPORT_ELIGIBILITY_ROW_TARGETS, 'item_name'];

/** The row shape a target belongs to, or undefined for one every shape reads (`code`, `_id`, `product_name`). */
export function targetRowShape(target: string): ImportRowShape | undefined {
  if (ANY_SHAPE_TARGETS.includes(target)) return undefined;
  if (ATTRIBUTE_ROW_ONLY.includes(target)) return 'attribute_rows';
  if (ELIGIBILITY_ROW_ONLY.includes(target)) return 'eligibility_rows';
  return 'product_rows';
}

/**
 * The shape of an import's rows, by the targets its mapping names: attribute rows when
 * `attribute_key` and `value` are mapped, else eligibility rows when `relation` and `item_code` or
 * `item_id` are, else product rows. A mapping naming targets of another shape is refused by the
 * import's mapping checks, never read in part.
 */
export function importRowShape(targets: Iterable<string>): ImportRowShape {
  const named = new Set(targets);
  if (named.has('attribute_key') && named.has('value')) return 'attribute_rows';
  if (named.has('relation') && (named.has('item_code') || named.has('item_id'))) return 'eligibility_rows';
  return 'product_rows';
}

const LANGUAGE_SOURCE = '[a-z]{2,3}(-[A-Za-z0-9]{2,8})*';

/**
 * How a mapped target is written: a plain one, a text per language, an attribute (per language
 * when localizable, its key as attribute keys are written), a column of attribute rows or of
 * eligibility rows, or a column of the platform's own exports that is skipped
 * (`IMPORT_SKIPPED_TARGETS`, `completeness.<language>`).
 */
export const IMPORT_TARGET_PATTERN = new RegExp(
  `^(${[...IMPORT_PLAIN_TARGETS, ...IMPORT_SKIPPED_TARGETS, ...IMPORT_ATTRIBUTE_ROW_TARGETS, ...IMPORT_ELIGIBILITY_ROW_TARGETS].join('|')}|(name|description|completeness)\\.${LANGUAGE_SOURCE}|attributes\\.${ATTRIBUTE_KEY_SOURCE}(\\.${LANGUAGE_SOURCE})?)$`,
);

/** Whether a mapped target is a column the import skips (`_id`, `created_at`, `completeness.en`…). */
export const isSkippedTarget = (target: string): boolean =>
  (IMPORT_SKIPPED_TARGETS as readonly string[]).includes(target) || target.startsWith('completeness.');

/** A spreadsheet column as it is named in the sheet: A, B… Z, AA… */
export const COLUMN_PATTERN = /^[A-Z]{1,3}$/;

const MAX_COLUMNS = 1_000;
/** The largest count or size an import shows (a 32-bit integer). */
const INT32_MAX = 2_147_483_647;
const count = (description: string) =>
  field.computed('number', z.number().int().min(0).max(INT32_MAX).meta({ format: 'int32', description })).shown();

const worksheetSchema = z
  .strictObject({
    id: z.string().max(100),
    name: z.string().max(200),
    header_row: z
      .number()
      .int()
      .min(1)
      .max(INT32_MAX)
      .optional()
      .meta({ format: 'int32', description: 'Its detected header row (absent when the worksheet holds no cell)' }),
    rows_count: z
      .number()
      .int()
      .min(0)
      .max(INT32_MAX)
      .optional()
      .meta({ format: 'int32', description: 'Non-empty rows below its detected header row' }),
  })
  .meta({
    id: 'ImportWorksheet',
    description: 'A worksheet of the uploaded workbook (one for a CSV file), as read at upload',
  });

const headerSchema = z
  .strictObject({
    column: z.string().max(3).meta({ example: 'A', description: 'The column as the spreadsheet names it' }),
    label: z.string().max(1_000).meta({ example: 'SKU', description: 'The text of the header cell' }),
  })
  .meta({ id: 'ImportHeader', description: 'A column of the header row' });

/** Column → product field, as written by a caller. */
export const mappedHeadersSchema = z
  .record(z.string().max(3), z.string().max(200))
  .refine((r) => Object.keys(r).length <= MAX_COLUMNS, `must map at most ${MAX_COLUMNS} columns`)
  .meta({
    id: 'ImportMappedHeaders',
    description:
      'Which product field each column fills, by the column\'s letter: `{"A": "code", "B": "name.pt-BR", "C": "attributes.color"}`. ' +
      'Targets: code (required), name.<language>, description.<language>, type, brand (by code), family (by code), ' +
      'categories (codes separated by |, ; or ,), tags, enabled, image, images, attributes.<key> ' +
      '(attributes.<key>.<language> for a localizable text attribute). A column left out is not read. ' +
      "Columns of the platform's own exports that the platform fills — _id, category_trees, parent, catalogs, fulfilled, published, last_published_at, created_at, updated_at, completeness.<language> — may be mapped to themselves and are read past, so an export imports back through a mapping of each header to itself. " +
      'The mapping decides what a row is. Product rows (the targets above): one product per row. ' +
      "Attribute rows, when attribute_key and value are mapped (a per_attributes export): each row sets the product's attribute attribute_key to value, parsed by the attribute's type, in the row's language (target language) for a localizable text attribute; rows of one code are stored together, and only existing products change. " +
      "Eligibility rows, when relation and item_code or item_id are mapped (an eligibility_services export): each product's relation of the type a row names (eligible_service_products, ineligible_service_products, eligible_service_categories, ineligible_service_categories) becomes exactly the items its rows list — by item_code (a product's or a category's code; category_tree, a tree's code, picks among categories sharing a code), else by item_id —; relations the file does not name are left alone, and the rows of one product's relation must follow one another. " +
      'eligible and item_type are checked against relation; product_name, attribute_name, attribute_type and item_name are read past. A mapping holds the targets of one kind of row only.',
    example: { A: 'code', B: 'name.pt-BR', C: 'attributes.color' },
  });

const templateSnapshotSchema = z
  .strictObject({
    id: objectIdSchema,
    name: z.string().max(200),
    enabled: z.boolean(),
    created_at: z.string().max(40).meta({ format: 'date-time' }),
    deleted: z.boolean(),
    deleted_at: z.string().max(40).optional().meta({ format: 'date-time' }),
    deleted_by: z.string().max(200).optional(),
  })
  .meta({ id: 'ImportTemplateSnapshot', description: 'The import template the mapping came from, as it was then' });

/**
 * Imports, declared once. A caller writes where the products go (`catalog_id`, `category_id`),
 * which worksheet and header row to read and how columns map; everything else — the file, its
 * headers, the counts, the state — the io-jobs app computes.
 */
export const Import = defineResource({
  collection: 'imports',
  description: 'Import: a spreadsheet of products, mapped and run through the catalog',
  inputDescription: 'What a caller sets on an import before it starts: where products go and how to read the file',
  authorShown: true,
  fields: {
    catalog_id: field.of('id', {
      input: objectIdSchema.meta({ description: 'A catalog every imported product joins' }),
      view: objectIdSchema,
    }),
    category_id: field.of('id', {
      input: objectIdSchema.meta({ description: 'A category every imported product joins' }),
      view: objectIdSchema,
    }),
    from_template_id: field.of('id', {
      input: objectIdSchema.meta({
        description: 'An import template whose mapping fills mapped_headers (columns matched by header label)',
      }),
      view: objectIdSchema,
    }),
    file_worksheet_id: field.of('string', {
      input: z.string().min(1).max(100).meta({
        description:
          'The worksheet to read (one of worksheets[].id); by default the one that looks like the product table: with rows below its header row, the most header labels naming product fields (code, name, sku, price…), then the most headers, then the most rows',
      }),
      view: z.string().max(100),
    }),
    file_header_row: field.of('number', {
      input: z
        .number()
        .int()
        .min(1)
        .max(1_000)
        .meta({ format: 'int32', description: 'The row holding the headers (1 = first); detected at upload' }),
      view: z.number().int().min(1).max(1_000).meta({ format: 'int32' }),
    }),
    mapped_headers: field
      .of('object', { input: mappedHeadersSchema, view: mappedHeadersSchema })
      .default({})
      .listed(false),
    time_zone: field.of('string', {
      input: timeZoneSchema.meta({
        description:
          "Where the file's date-times were written, as an IANA name (America/Sao_Paulo) or UTC: a date-time without an offset — a date cell, or text such as 2024-01-31 13:45 — is that time there. " +
          'Text with Z or an offset (2024-01-31T13:45:00-03:00) keeps its own, and a column whose header ends with a zone in parentheses, as exports title date-time columns (`updated_at (America/Sao_Paulo)`), is read in that zone. ' +
          "Default: the template's time_zone, else the platform's (PIM_DEFAULT_TIME_ZONE, UTC unless set); the zone used is recorded here",
      }),
      view: z.string().max(64),
    }),
    strip_formula_quote: field
      .of('boolean', {
        input: z.boolean().meta({
          description:
            "Default true: a cell that starts with ' followed by =, +, -, @, a tab, a carriage return or another ' is read without that first ' " +
            "(the ' that CSV exports and import error files put before texts that look like formulas): `'=1+1` is read as `=1+1` and `''x` as `'x`, while `'abc` is read as it is. " +
            'Applies to every cell and header label of the file, whatever its format. ' +
            "Set false for a file made elsewhere whose texts really start with such a ', to read every cell exactly as written",
        }),
      })
      .default(true),
    status: field
      .computed(
        'string',
        z.enum(IMPORT_STATUSES).meta({
          description:
            'uploaded → mapped → queued → processing → completed, completed_with_errors or failed; canceled from any state before those',
        }),
      )
      .shown(),
    file_name: field
      .computed('string', z.string().max(255).meta({ description: 'The uploaded file name', example: 'products.xlsx' }))
      .searchable(),
    file_key: field.computed('string', z.string().max(500).meta({ description: 'Where the file is stored' })),
    file_type: field.computed('string', z.enum(IMPORT_FILE_TYPES).meta({ description: 'The file format' })),
    file_size: field.computed(
      'number',
      z.number().int().min(0).max(INT32_MAX).meta({ format: 'int32', description: 'Bytes' }),
    ),
    file_worksheet_name: field.computed('string', z.string().max(200)),
    worksheets: field.computed('array', z.array(worksheetSchema).max(1_000)).listed(false),
    headers: field.computed('array', z.array(headerSchema).max(MAX_COLUMNS)).listed(false),
    columns_count: count('Columns of the header row'),
    rows_count: count('Non-empty rows below the header row'),
    proccess_count: count('Rows processed so far'),
    commit_count: count('Rows stored in the catalog'),
    errors_count: count('Rows refused (see GET /imports/{id}/errors)'),
    logs: field
      .computed('array', z.array(z.string().max(2_000)).max(200).meta({ description: 'What happened, in short' }))
      .listed(false),
    template: field.computed('object', templateSnapshotSchema).listed(false),
    started_at: field.computed('date', dateTimeSchema.meta({ description: 'When a worker began' })),
    finished_at: field.computed('date', dateTimeSchema.meta({ description: 'When it reached a final state' })),
  },
});

/** An import as the API shows it. */
export type ImportView = z.infer<typeof Import.schemas.view>;
/** The writable fields of an import. */
export type ImportInput = z.infer<typeof Import.schemas.input>;
/** A header of the uploaded sheet. */
export type ImportHeader = z.infer<typeof headerSchema>;
