import { z } from 'zod';
import { field } from './declare/field';
import { defineResource } from './declare/resource';
import { IMPORT_TARGET_PATTERN } from './import';
import { identifyingNameSchema } from './codes';
import { timeZoneSchema } from './time-zones';

const MAX_COLUMNS = 1_000;

/** Header label → product field: a template names columns by their header text, so it fits any file with those headers. */
export const templateMappingSchema = z
  .record(
    z.string().trim().min(1).max(1_000),
    z.string().regex(IMPORT_TARGET_PATTERN, 'is not a product field an import can fill').max(200),
  )
  .refine((r) => Object.keys(r).length <= MAX_COLUMNS, `must map at most ${MAX_COLUMNS} headers`)
  .refine((r) => Object.values(r).includes('code'), 'must map one header to code (products are matched by code)')
  .refine(
    (r) => new Set(Object.values(r)).size === Object.values(r).length,
    'must map each product field from one header only',
  )
  .meta({
    id: 'ImportTemplateMapping',
    description:
      'Which product field each header fills, by the header text (matched ignoring case and surrounding spaces): ' +
      '`{"SKU": "code", "Nome": "name.pt-BR", "Cor": "attributes.color"}`. ' +
      "Targets as in an import's mapped_headers, the columns of attribute rows (attribute_key, language, value) and of eligibility rows (relation, item_code, item_id, category_tree, eligible, item_type) included, " +
      "so a template mapping each header of any export to its own name (a date-time column's zone suffix aside) imports it back. " +
      'Only the headers a file has are mapped, so one template may name the columns of several kinds of file; the mapping an import takes must hold the targets of one kind of row.',
    example: { SKU: 'code', Nome: 'name.pt-BR', Cor: 'attributes.color' },
  });

/**
 * Import templates: a saved mapping from header labels to product fields, reused by naming it in
 * `from_template_id` when uploading a file with the same headers. Named by `name`, unique among
 * live templates.
 */
export const ImportTemplate = defineResource({
  collection: 'import_templates',
  description: 'Import template: a column mapping saved for files with the same headers',
  fields: {
    name: field
      .of('string', {
        input: identifyingNameSchema(200, 'Unique among live templates', 'Supplier A'),
        view: z.string().max(200),
      })
      .required()
      .searchable()
      .normalized(),
    enabled: field.flag('A disabled template cannot be used for new imports').default(true),
    time_zone: field.of('string', {
      input: timeZoneSchema.meta({
        description:
          "Where the date-times of the files this template reads were written (IANA name or UTC): an import from the template takes it unless the import names its own; absent, the platform's default",
      }),
      view: z.string().max(64),
    }),
    mapped_headers: field
      .of('object', { input: templateMappingSchema, view: templateMappingSchema })
      .required()
      .listed(false),
  },
});

/** An import template as the API shows it. */
export type ImportTemplateView = z.infer<typeof ImportTemplate.schemas.view>;
/** The writable fields of an import template. */
export type ImportTemplateInput = z.infer<typeof ImportTemplate.schemas.input>;
