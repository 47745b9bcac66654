import { z } from 'zod';
import { declareResource, type FieldDecl } from '@pim/query';
import { dateTimeSchema, objectIdSchema } from './common';

// Brands, category trees, categories, families and catalogs share their fields (issue 4 item 4);
// each adds a few of its own. The shared parts are declared once here and every resource's
// schemas and list declaration are derived from them.

/** A language code as a Translate key: `pt`, `en`, `pt-BR`, `en_US`, `zh-Hant`. */
export const languageCodeSchema = z
  .string()
  .max(35)
  .regex(/^[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$/, 'must be a language code such as pt, en or pt-BR');

const MAX_LANGUAGES = 50;
const fewLanguages = (o: Record<string, unknown>) => Object.keys(o).length <= MAX_LANGUAGES;

/** Translate (decisions.md §1): an object of language codes to strings. */
export const translateSchema = z
  .record(languageCodeSchema, z.string().max(10_000))
  .refine(fewLanguages, `must have at most ${MAX_LANGUAGES} languages`)
  .meta({ id: 'Translate', description: 'Text per language code', example: { pt: 'Café', en: 'Coffee' } });

/** A required Translate name: at least one language, each text non-empty. */
export const nameSchema = z
  .record(languageCodeSchema, z.string().min(1).max(1_000))
  .refine((o) => Object.keys(o).length > 0, 'must have at least one language')
  .refine(fewLanguages, `must have at most ${MAX_LANGUAGES} languages`)
  .meta({ description: 'Name per language code; at least one', example: { pt: 'Café', en: 'Coffee' } });

/** A merge patch of a Translate: a text sets a language, null removes it. */
export const translatePatchSchema = (text: z.ZodString) =>
  z
    .record(languageCodeSchema, text.nullable())
    .meta({ description: 'Languages to set (text) or remove (null)', example: { en: 'Coffee', es: null } });

const CODE = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/** A taxonomy code: letters, digits, `_`, `-` and `.`, unique among the live records of its collection. */
export const taxonomyCodeSchema = z
  .string()
  .max(100)
  .regex(CODE, 'must be letters, digits, _, - or . (starting with a letter, digit or _)')
  .meta({ description: 'Unique among the live records of the collection', example: 'coffee_beans' });

/** Free tags: at most 100, each 1 to 100 characters. */
export const tagsSchema = z
  .array(z.string().min(1).max(100))
  .max(100)
  .meta({ description: 'Free tags', example: ['organic'] });

/** A list of ids in which each id appears once. */
export const idSetSchema = (what: string) =>
  z
    .array(objectIdSchema)
    .max(1_000)
    .refine((ids) => new Set(ids).size === ids.length, `must name each ${what} once`);

const enabledSchema = z.boolean().meta({ description: 'Whether the record is in use (default true)' });

/** Writable fields every taxonomy resource has. */
const baseInput = {
  code: taxonomyCodeSchema,
  name: nameSchema,
  description: translateSchema.optional(),
  enabled: enabledSchema.optional(),
  tags: tagsSchema.optional(),
};

/** The same fields in a merge patch: required ones may change but not be removed; optional ones may be nulled (back to their default). */
const basePatch = {
  code: taxonomyCodeSchema.optional(),
  name: translatePatchSchema(z.string().min(1).max(1_000)).optional(),
  description: translatePatchSchema(z.string().max(10_000)).nullable().optional(),
  enabled: enabledSchema.nullable().optional(),
  tags: tagsSchema.nullable().optional(),
};

/** Fields every taxonomy resource shows, before its own. */
const baseViewHead = {
  _id: objectIdSchema,
  code: z.string().max(100).meta({ pattern: CODE.source, example: 'coffee_beans' }),
  name: translateSchema,
  description: translateSchema,
  enabled: z.boolean(),
  tags: z.array(z.string().max(100)).max(100),
};

/** Fields every taxonomy resource shows, after its own. */
const baseViewTail = {
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
};

/** The three schemas of one taxonomy resource: what a caller writes, patches and reads. */
function taxonomySchemas<In extends z.ZodRawShape, Pa extends z.ZodRawShape, Vi extends z.ZodRawShape>(
  id: string,
  description: string,
  own: { input: In; patch: Pa; view: Vi },
) {
  return {
    input: z
      .strictObject({ ...baseInput, ...own.input })
      .meta({ id: `${id}Input`, description: `${description}, as written by a caller` }),
    patch: z
      .strictObject({ ...basePatch, ...own.patch })
      .meta({ id: `${id}Patch`, description: `JSON merge patch (RFC 7396) of a ${description.toLowerCase()}` }),
    view: z.strictObject({ ...baseViewHead, ...own.view, ...baseViewTail }).meta({ id, description }),
  };
}

/** Brand schemas: the common fields only. */
export const brandSchemas = taxonomySchemas('Brand', 'Brand', { input: {}, patch: {}, view: {} });

/** Category tree schemas: the common fields only. */
export const categoryTreeSchemas = taxonomySchemas('CategoryTree', 'Category tree: the root categories hang from', {
  input: {},
  patch: {},
  view: {},
});

/** Category schemas: a node of one tree, under an optional parent of the same tree. */
export const categorySchemas = taxonomySchemas('Category', 'Category: one node of a category tree', {
  input: {
    category_tree_id: objectIdSchema.meta({ description: 'The tree (must exist; the parent must be in it)' }),
    parent_id: objectIdSchema.optional().meta({
      description:
        'The parent category (same tree, never the category itself or one of its descendants); absent at the top of the tree',
    }),
  },
  patch: {
    category_tree_id: objectIdSchema.optional(),
    parent_id: objectIdSchema.nullable().optional(),
  },
  view: {
    category_tree_id: objectIdSchema,
    parent_id: objectIdSchema.optional(),
  },
});

/** One attribute of a family: `_id` and whether products of the family must fill it. */
export const familyAttributeSchema = z
  .strictObject({
    _id: objectIdSchema,
    required: z.boolean().meta({ description: 'Products of the family must fill this attribute' }),
  })
  .meta({ id: 'FamilyAttribute' });

const familyAttributesSchema = z
  .array(familyAttributeSchema)
  .max(1_000)
  .refine((a) => new Set(a.map((x) => x._id)).size === a.length, 'must name each attribute once')
  .meta({ description: 'Live attributes of the family, each once' });

const attributeGroupsSchema = idSetSchema('attribute group').meta({
  description: 'Live attribute group ids, each once',
});

/** Family schemas: the attribute groups and attributes its products carry. */
export const familySchemas = taxonomySchemas(
  'Family',
  'Family: the attribute groups and attributes its products carry',
  {
    input: { attribute_groups: attributeGroupsSchema.optional(), attributes: familyAttributesSchema.optional() },
    patch: {
      attribute_groups: attributeGroupsSchema.nullable().optional(),
      attributes: familyAttributesSchema.nullable().optional(),
    },
    view: {
      attribute_groups: z.array(objectIdSchema).max(1_000),
      attributes: z.array(familyAttributeSchema).max(1_000),
    },
  },
);

const userGroupsSchema = idSetSchema('users group').meta({
  description: 'Users group ids that may see the catalog (checked for existence once users groups exist)',
});

/** Catalog schemas: the users groups that may see its products. */
export const catalogSchemas = taxonomySchemas('Catalog', 'Catalog: a selection of products and who may see it', {
  input: { user_groups: userGroupsSchema.optional() },
  patch: { user_groups: userGroupsSchema.nullable().optional() },
  view: { user_groups: z.array(objectIdSchema).max(1_000) },
});

/** A brand as the API shows it. */
export type BrandView = z.infer<typeof brandSchemas.view>;
/** A category tree as the API shows it. */
export type CategoryTreeView = z.infer<typeof categoryTreeSchemas.view>;
/** A category as the API shows it. */
export type CategoryView = z.infer<typeof categorySchemas.view>;
/** A family as the API shows it. */
export type FamilyView = z.infer<typeof familySchemas.view>;
/** A catalog as the API shows it. */
export type CatalogView = z.infer<typeof catalogSchemas.view>;
/** Writable fields of a category. */
export type CategoryInput = z.infer<typeof categorySchemas.input>;
/** Writable fields of a family. */
export type FamilyInput = z.infer<typeof familySchemas.input>;
/** Writable fields of a catalog. */
export type CatalogInput = z.infer<typeof catalogSchemas.input>;
/** Writable fields of a brand or a category tree (the common ones). */
export type TaxonomyInput = z.infer<typeof brandSchemas.input>;
/** What every taxonomy resource shows. */
export type TaxonomyView = BrandView;

/** List fields every taxonomy resource has: `_search` covers code and every language of name. */
const baseListFields: Record<string, FieldDecl> = {
  _id: { type: 'id' },
  code: { type: 'string', required: true, searchable: true },
  name: { type: 'translate', required: true, searchable: true },
  description: { type: 'translate' },
  enabled: { type: 'boolean' },
  tags: { type: 'string[]' },
  version: { type: 'number' },
  created_at: { type: 'date' },
  updated_at: { type: 'date' },
  created_by_name: { type: 'string' },
};

/** Fields of the brands list. */
export const brandListDecl = declareResource({ collection: 'brands', fields: { ...baseListFields } });

/** Fields of the category trees list. */
export const categoryTreeListDecl = declareResource({ collection: 'category_trees', fields: { ...baseListFields } });

/** Name of the categories filter that selects a category and all its descendants. */
export const IN_CHILDREN_FILTER = 'categories_in_children';

/**
 * Fields of the categories list. `categories_in_children=<id>` is a filter, not a field of the
 * record: the category itself and every descendant (`_in` for several subtrees, `_nin` to leave
 * subtrees out); its owner maps it onto the stored path.
 */
export const categoryListDecl = declareResource({
  collection: 'categories',
  fields: {
    ...baseListFields,
    category_tree_id: { type: 'id', required: true, expand: { as: 'category_tree', collection: 'category_trees' } },
    parent_id: { type: 'id', expand: { as: 'parent', collection: 'categories' } },
    [IN_CHILDREN_FILTER]: { type: 'id[]', sortable: false },
  },
});

/** Fields of the families list. */
export const familyListDecl = declareResource({
  collection: 'families',
  fields: { ...baseListFields, attribute_groups: { type: 'id[]' }, attributes: { type: 'array' } },
});

/** Fields of the catalogs list. */
export const catalogListDecl = declareResource({
  collection: 'catalogs',
  fields: { ...baseListFields, user_groups: { type: 'id[]' } },
});
