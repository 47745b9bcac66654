import { z } from 'zod';
import { codeSchema, codeViewSchema } from './codes';
import { objectIdSchema } from './common';
import { field } from './declare/field';
import { defineResource } from './declare/resource';

// Brands, category trees, categories, families and catalogs share their fields; each adds a few
// of its own. Each is declared once here (`defineResource`); its schemas, list declaration and
// column ↔ view mapping are derived from the declaration.

/** A language code as a Translate key: `pt`, `en`, `pt-BR`, `en_US`, `zh-Hant`. */
export const languageCodeSchema = z
  .string()
  .max(35)
  .regex(/^[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$/, 'must be a language code such as pt, en or pt-BR');

const MAX_LANGUAGES = 50;
const fewLanguages = (o: Record<string, unknown>) => Object.keys(o).length <= MAX_LANGUAGES;

/** Translate (docs/platform/rules.md: records): an object of language codes to strings. */
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

/**
 * A record's code (`codeSchema`): any printable text of 1 to 100 characters, trimmed, stored in
 * Unicode NFC, unique among the live records of its collection.
 */
export const taxonomyCodeSchema = codeSchema({
  description: 'Unique among the live records of the collection',
  example: 'coffee_beans',
});

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

/** A required name, searched in every language: at least one language, each text non-empty. */
export const nameField = field
  .of('translate', {
    input: nameSchema,
    patch: translatePatchSchema(z.string().min(1).max(1_000)),
    view: translateSchema,
  })
  .required()
  .searchable();

/** Text per language, `{}` until set (a description). */
export const translatedField = field
  .of('translate', { input: translateSchema, patch: translatePatchSchema(z.string().max(10_000)) })
  .default({});

/** Free tags, none until set. */
export const tagsField = field
  .of('string[]', { input: tagsSchema, view: z.array(z.string().max(100)).max(100) })
  .default([]);

/** The fields every taxonomy resource has, before its own: `_search` covers code and every language of name. */
const taxonomyFields = {
  code: field
    .of('string', {
      input: taxonomyCodeSchema,
      view: codeViewSchema().meta({ example: 'coffee_beans' }),
    })
    .required()
    .searchable()
    .normalized(),
  name: nameField,
  description: translatedField,
  enabled: field.of('boolean', { input: enabledSchema, view: z.boolean() }).default(true),
  tags: tagsField,
};

/** Brands: the common taxonomy fields only. */
export const Brand = defineResource({
  collection: 'brands',
  commonListFieldsAfter: 'tags',
  description: 'Brand',
  fields: taxonomyFields,
});

/** Category trees: the common taxonomy fields only. */
export const CategoryTree = defineResource({
  collection: 'category_trees',
  commonListFieldsAfter: 'tags',
  description: 'Category tree: the root categories hang from',
  fields: taxonomyFields,
});

/** Name of the categories filter that selects a category and all its descendants. */
export const IN_CHILDREN_FILTER = 'categories_in_children';

/**
 * Categories: nodes of one tree, under an optional parent of the same tree.
 * `categories_in_children=<id>` is a filter, not a field of the record: the category itself and
 * every descendant (`_in` for several subtrees, `_nin` to leave subtrees out); its owner maps it
 * onto the stored path.
 */
export const Category = defineResource({
  collection: 'categories',
  commonListFieldsAfter: 'tags',
  description: 'Category: one node of a category tree',
  fields: {
    ...taxonomyFields,
    category_tree_id: field
      .of('id', {
        input: objectIdSchema.meta({ description: 'The tree (must exist; the parent must be in it)' }),
        patch: objectIdSchema,
        view: objectIdSchema,
      })
      .required()
      .expands('category_tree', 'category_trees'),
    parent_id: field
      .of('id', {
        input: objectIdSchema.meta({
          description:
            'The parent category (same tree, never the category itself or one of its descendants); absent at the top of the tree',
        }),
        patch: objectIdSchema,
        view: objectIdSchema,
      })
      .expands('parent', 'categories'),
  },
  filters: { [IN_CHILDREN_FILTER]: { type: 'id[]', sortable: false } },
});

/** One attribute of a family: `_id` and whether products of the family must fill it. */
export const familyAttributeSchema = z
  .strictObject({
    _id: objectIdSchema,
    required: z.boolean().meta({ description: 'Products of the family must fill this attribute' }),
  })
  .meta({ id: 'FamilyAttribute', description: 'An attribute of the family, and whether its products must fill it' });

const familyAttributesSchema = z
  .array(familyAttributeSchema)
  .max(1_000)
  .refine((a) => new Set(a.map((x) => x._id)).size === a.length, 'must name each attribute once')
  .meta({ description: 'Live attributes of the family, each once' });

const attributeGroupsSchema = idSetSchema('attribute group').meta({
  description: 'Live attribute group ids, each once',
});

/** Families: the attribute groups and attributes (with `required`) its products carry. */
export const Family = defineResource({
  collection: 'families',
  commonListFieldsAfter: 'tags',
  description: 'Family: the attribute groups and attributes its products carry',
  fields: {
    ...taxonomyFields,
    attribute_groups: field
      .of('id[]', { input: attributeGroupsSchema, view: z.array(objectIdSchema).max(1_000) })
      .default([]),
    attributes: field
      .of('array', { input: familyAttributesSchema, view: z.array(familyAttributeSchema).max(1_000) })
      .default([]),
  },
});

const userGroupsSchema = idSetSchema('users group').meta({
  description: 'Ids of the users groups that may see the catalog; each must name a live users group',
});

/** Catalogs: a selection of products and the users groups that may see it. */
export const Catalog = defineResource({
  collection: 'catalogs',
  commonListFieldsAfter: 'tags',
  description: 'Catalog: a selection of products and who may see it',
  fields: {
    ...taxonomyFields,
    user_groups: field.of('id[]', { input: userGroupsSchema, view: z.array(objectIdSchema).max(1_000) }).default([]),
  },
});

/** Brand schemas (what a caller writes, patches and reads). */
export const brandSchemas = Brand.schemas;
/** Category tree schemas. */
export const categoryTreeSchemas = CategoryTree.schemas;
/** Category schemas. */
export const categorySchemas = Category.schemas;
/** Family schemas. */
export const familySchemas = Family.schemas;
/** Catalog schemas. */
export const catalogSchemas = Catalog.schemas;

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

/** Fields of the brands list. */
export const brandListDecl = Brand.listDecl;
/** Fields of the category trees list. */
export const categoryTreeListDecl = CategoryTree.listDecl;
/** Fields of the categories list. */
export const categoryListDecl = Category.listDecl;
/** Fields of the families list. */
export const familyListDecl = Family.listDecl;
/** Fields of the catalogs list. */
export const catalogListDecl = Catalog.listDecl;
