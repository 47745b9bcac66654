import { z } from 'zod';
import { userIdViewSchema } from './codes';
import { dateTimeSchema, objectIdSchema } from './common';
import { timeZoneSchema } from './time-zones';
import { field } from './declare/field';
import { defineResource } from './declare/resource';
import { PRODUCT_APPROVAL_STATUSES } from './product-approval';

// Exports: a file of the catalog's products (CSV or XLSX) written by a worker from a snapshot of
// filters and columns taken at creation. An export is never changed after it is created: a
// failed one is retried as it is; another selection is another export.

/** Where an export stands. */
export const EXPORT_STATUSES = ['pending', 'in_progress', 'failed', 'completed'] as const;
/** An export's state. */
export type ExportStatus = (typeof EXPORT_STATUSES)[number];
/** The formats an export writes. */
export const EXPORT_FILE_TYPES = ['csv', 'xlsx'] as const;
/** An export's format. */
export type ExportFileType = (typeof EXPORT_FILE_TYPES)[number];
/** What an export's rows are. */
export const EXPORT_REPORT_TYPES = ['general', 'eligibility_services', 'per_attributes'] as const;
/** An export's report type. */
export type ExportReportType = (typeof EXPORT_REPORT_TYPES)[number];

/** An export lists the ids of its products when it holds at most this many (a bigger one names none). */
export const EXPORT_PRODUCTS_MAX = 1_000;
const MAX_IDS = 1_000;
const MAX_COLUMNS = 1_000;
const INT32_MAX = 2_147_483_647;

const ids = (description: string) => z.array(objectIdSchema).min(1).max(MAX_IDS).optional().meta({ description });

const attrControlSchema = z
  .strictObject({
    attribute_item: z.strictObject({ id: objectIdSchema.meta({ description: "The attribute's _id" }) }),
    attributes: z.strictObject({
      key: z.string().min(1).max(100).meta({ description: "The attribute's key", example: 'color' }),
      name: z.string().max(200).meta({ description: "The attribute's name, as the caller showed it" }),
    }),
  })
  .meta({
    id: 'ExportAttributeControl',
    description: 'An attribute under control: the product must have a value for it',
  });

/** Which products an export holds: every filter given must hold (an empty object: every live product). */
export const exportFiltersSchema = z
  .strictObject({
    enabled: z.boolean().optional().meta({ description: 'Active (true) or inactive (false) products only' }),
    _id_in: ids('These products only, by _id'),
    _search: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .meta({ description: 'Case- and accent-insensitive text in the code or any language of the name' }),
    attr_control: z.array(attrControlSchema).min(1).max(100).optional().meta({
      description:
        'Products with a value for every attribute named; a per_attributes report holds rows of these attributes only. Naming an attribute hidden from your user (an attribute group lists you among its not_allowed_users) is refused with 403',
    }),
    brands: ids('Products of one of these brands'),
    catalog: objectIdSchema.optional().meta({ description: 'Products in this catalog' }),
    categories: ids('Products in at least one of these categories'),
    families: ids('Products of one of these families'),
    category_trees: ids('Products in at least one of these category trees'),
    custom_period: z
      .array(dateTimeSchema)
      .min(2)
      .max(2)
      .optional()
      .meta({ description: 'Products created from the first date to the second (both included, ISO 8601)' }),
    workflow_approval: objectIdSchema
      .optional()
      .meta({ description: 'Products with a product approval governed by this workflow approval' }),
    workflow_approval_status: z
      .enum(PRODUCT_APPROVAL_STATUSES)
      .optional()
      .meta({ description: 'With workflow_approval (or alone): products with a product approval in this state' }),
    fulfilled: z
      .boolean()
      .optional()
      .meta({ description: 'true: products with a fulfilled quantity above zero; false: none fulfilled' }),
  })
  .refine((f) => !f.custom_period || f.custom_period[0] <= f.custom_period[1], {
    path: ['custom_period'],
    message: 'the first date must not be after the second',
  })
  .meta({
    id: 'ExportFilters',
    description: 'Which products the export holds; every filter given must hold',
    example: { enabled: true, brands: ['6740a1b2c3d4e5f601234567'], _search: 'shirt' },
  });

/** A column of the file: its title, and what fills it. */
export const exportHeaderSchema = z
  .strictObject({
    label: z.string().min(1).max(200).meta({ description: 'The column title in the file', example: 'Color' }),
    value: z.string().min(1).max(200).optional().meta({
      description:
        'What fills the column (the label when absent): a product field (code, name.pt-BR, brand…) or, with isAttribute, an attribute key (color, or color.pt-BR for one language of a localizable text); an attribute hidden from your user (an attribute group lists you among its not_allowed_users) is refused with 403',
      example: 'color',
    }),
    isAttribute: z.boolean().meta({ description: 'value names an attribute key rather than a product field' }),
  })
  .meta({ id: 'ExportHeader', description: 'A column of the file, in order' });

const metadataSchema = z
  .strictObject({
    total_products: z.number().int().min(0).max(INT32_MAX).meta({ format: 'int32', description: 'Products written' }),
    total_field_failed: z.number().int().min(0).max(INT32_MAX).meta({
      format: 'int32',
      description: 'Values left empty or cut because they could not be written as stored',
    }),
    total_item_failed: z.number().int().min(0).max(INT32_MAX).meta({
      format: 'int32',
      description: 'Products left out because their row could not be built',
    }),
  })
  .meta({ id: 'ExportMetadata', description: 'What the export wrote' });

/**
 * Exports, declared once. A caller chooses the format, the report, the filters and the columns at
 * creation; the io-jobs app computes the rest as its worker writes the file.
 */
export const Export = defineResource({
  collection: 'exports',
  description: 'Export: a CSV or XLSX file of the products a set of filters selects',
  inputDescription: 'What to export: the format, the report, which products and which columns',
  authorShown: true,
  fields: {
    file_type: field.of('string', { input: z.enum(EXPORT_FILE_TYPES).meta({ description: 'csv or xlsx' }) }).required(),
    report_type: field
      .of('string', {
        input: z.enum(EXPORT_REPORT_TYPES).meta({
          description:
            'general: a row per product; eligibility_services: a row per product and service eligibility item; per_attributes: a row per product and attribute value',
        }),
      })
      .default('general'),
    file_name: field
      .of('string', {
        input: z
          .string()
          .min(1)
          .max(200)
          .regex(/^[^/\\\0]+$/, 'must not contain / or \\')
          .meta({
            description: 'The name the download gets (the extension is added when missing)',
            example: 'shirts.xlsx',
          }),
        view: z.string().max(255),
      })
      .searchable(),
    csv_bom: field
      .of('boolean', {
        input: z.boolean().meta({
          description:
            'CSV only: start the file with a UTF-8 byte order mark, so Excel reads accents right (default true); false for programs that do not expect one',
        }),
      })
      .default(true),
    csv_neutralize_formulas: field
      .of('boolean', {
        input: z.boolean().meta({
          description:
            "CSV only (default true): put a ' before every text that starts with =, +, -, @, a tab, a carriage return or ', so that spreadsheet programs show it as text instead of running it as a formula. " +
            "Imports remove that one ' again (their strip_formula_quote setting, on by default), so the file imports back unchanged. " +
            'false writes every text exactly as stored, for programs that read the file as plain data. ' +
            'Numbers, booleans and dates are never prefixed, and XLSX files need no prefix: their texts are text cells',
        }),
      })
      .default(true),
    time_zone: field
      .of('string', {
        input: timeZoneSchema.meta({
          description:
            'Default UTC: the IANA time zone (America/Sao_Paulo) date-times are written in, so a spreadsheet shows the time a person there expects. ' +
            "Each date-time column's header names it (`updated_at (America/Sao_Paulo)`); XLSX cells hold that wall time, CSV cells ISO 8601 with the zone's offset (2024-02-01T10:20:30.000-03:00). " +
            'Imports read a column whose header names a zone in that zone, so the file imports back to the same instants. Dates (without a time) are never moved',
        }),
        view: z.string().max(64),
      })
      .default('UTC'),
    filters: field.of('object', { input: exportFiltersSchema }).default({}).listed(false),
    headers: field
      .of('array', {
        input: z.array(exportHeaderSchema).max(MAX_COLUMNS).meta({
          description: 'The columns, in order; empty: every column of the report type',
        }),
      })
      .default([])
      .listed(false),
    status: field
      .computed(
        'string',
        z.enum(EXPORT_STATUSES).meta({
          description: 'pending → in_progress → completed or failed; retry puts a failed export back to pending',
        }),
      )
      .shown(),
    file_key: field
      .computed('string', z.string().max(500).meta({ description: 'Where the file is (or will be) stored' }))
      .shown(),
    products: field
      .computed(
        'id[]',
        z
          .array(objectIdSchema)
          .max(EXPORT_PRODUCTS_MAX)
          .meta({
            description: `The _ids of the products written, when there are at most ${EXPORT_PRODUCTS_MAX.toLocaleString('en-US')} (a bigger export lists none: its filters say which products it holds)`,
          }),
      )
      .default([])
      .listed(false),
    downloaded_by: field
      .computed(
        'string[]',
        z
          .array(userIdViewSchema)
          .max(MAX_IDS)
          .meta({ description: 'The users who downloaded the file (user ids), each once' }),
      )
      .default([]),
    metadata: field.computed('object', metadataSchema).shown(),
    rows_count: field
      .computed(
        'number',
        z
          .number()
          .int()
          .min(0)
          .max(INT32_MAX)
          .meta({ format: 'int32', description: 'Rows written below the header row' }),
      )
      .default(0),
    file_size: field.computed(
      'number',
      z.number().min(0).max(9_007_199_254_740_991).meta({ format: 'int64', description: 'Bytes of the file' }),
    ),
    logs: field
      .computed('array', z.array(z.string().max(2_000)).max(200).meta({ description: 'What happened, in short' }))
      .default([])
      .listed(false),
    started_at: field.computed('date', dateTimeSchema.meta({ description: 'When a worker began' })),
    finished_at: field.computed('date', dateTimeSchema.meta({ description: 'When it completed or failed' })),
    expires_at: field.computed(
      'date',
      dateTimeSchema.meta({ description: 'When the file stops being kept (a download after it is a 410)' }),
    ),
  },
});

/** An export as the API shows it. */
export type ExportView = z.infer<typeof Export.schemas.view>;
/** The writable fields of an export. */
export type ExportInput = z.infer<typeof Export.schemas.input>;
/** An export's filters. */
export type ExportFilters = z.infer<typeof exportFiltersSchema>;
/** A column of an export. */
export type ExportHeader = z.infer<typeof exportHeaderSchema>;
