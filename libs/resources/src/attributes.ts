import { z } from 'zod';
import { code as currencyCode } from 'currency-codes';
import { codeSchema, userIdSchema } from './codes';
import { objectIdSchema } from './common';
import { field } from './declare/field';
import { defineResource } from './declare/resource';
import {
  idSetSchema,
  nameField,
  nameSchema,
  tagsField,
  translatePatchSchema,
  translateSchema,
  translatedField,
} from './taxonomy';

// Attributes, attribute options and attribute groups. Types and
// their settings follow docs/platform/rules.md (attribute types); the rules that tie a type to its settings live in the
// input schema, so the gateway and the catalog refuse the same bodies with the same messages.

/** The 14 attribute types (docs/platform/rules.md: attribute types). */
export const ATTRIBUTE_TYPES = [
  'text',
  'textarea',
  'number',
  'boolean',
  'date',
  'datetime',
  'select',
  'multiselect',
  'price',
  'metric',
  'url',
  'email',
  'image',
  'file',
] as const;

/** One of the 14 attribute types. */
export type AttributeType = (typeof ATTRIBUTE_TYPES)[number];

/** What an attribute applies to: `product` (simple, kit, service, parents), `sku` (variations), or both. */
export const ATTRIBUTE_ASSOCIATIONS = ['sku', 'product', 'product_and_sku'] as const;

/** One of the attribute associations. */
export type AttributeAssociation = (typeof ATTRIBUTE_ASSOCIATIONS)[number];

/** The type of an attribute created without one. */
export const DEFAULT_ATTRIBUTE_TYPE: AttributeType = 'text';

/** Types whose values may be declared unique across products (one value names one product). */
export const UNIQUE_TYPES: readonly AttributeType[] = ['text', 'number', 'date', 'datetime', 'url', 'email'];

/** Types whose values are option values of the attribute. */
export const OPTION_TYPES: readonly AttributeType[] = ['select', 'multiselect'];

/** type_config keys any type may carry. */
const COMMON_CONFIG_KEYS = ['enable_ia_generation', 'prompt_ia_instruction'] as const;

const TEXT_KEYS = ['min_length', 'max_length', 'pattern', 'localizable'] as const;

/** The type_config keys each type accepts beside the common ones; any other key is refused. */
export const TYPE_CONFIG_KEYS: Record<AttributeType, readonly string[]> = {
  text: TEXT_KEYS,
  textarea: TEXT_KEYS,
  number: ['min', 'max', 'type', 'decimals'],
  boolean: [],
  date: ['min', 'max'],
  datetime: ['min', 'max'],
  select: [],
  multiselect: [],
  price: ['currencies'],
  metric: ['units'],
  url: [],
  email: [],
  image: [],
  file: [],
};

/** A calendar date, `2024-01-31` (date attributes and their bounds). */
export const isoDateSchema = z.iso
  .date()
  .meta({ description: 'A calendar date (YYYY-MM-DD)', example: '2024-01-31', maxLength: 10 });

/** An instant with its offset, `2024-01-31T12:00:00Z` or `…-03:00` (datetime attributes and their bounds). */
export const isoDateTimeSchema = z.iso.datetime({ offset: true }).meta({
  description: 'An ISO 8601 date and time with Z or an offset',
  example: '2024-01-31T12:00:00.000Z',
  maxLength: 35,
});

/** Whether a code is an ISO 4217 currency code. */
export function isCurrencyCode(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && currencyCode(code) !== undefined;
}

const currencySchema = z
  .string()
  .max(3)
  .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 currency code such as BRL')
  .refine(isCurrencyCode, 'must be an ISO 4217 currency code such as BRL')
  .meta({ example: 'BRL' });

const unitSchema = z
  .string()
  .min(1)
  .max(30)
  .regex(/^\S(.*\S)?$/, 'must not start or end with spaces')
  .meta({ example: 'kg' });

const unique = <T>(items: T[]) => new Set(items).size === items.length;

/** The settings of an attribute's type; which keys a type accepts is checked with the type. */
export const typeConfigSchema = z
  .strictObject({
    min_length: z
      .number()
      .int()
      .min(0)
      .max(1_000_000)
      .optional()
      .meta({ description: 'text, textarea: fewest characters', format: 'int32' }),
    max_length: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .optional()
      .meta({ description: 'text, textarea: most characters (≥ min_length)', format: 'int32' }),
    pattern: z.string().max(500).optional().meta({
      description: 'text, textarea: a regular expression (JavaScript syntax, Unicode mode) every value must match',
    }),
    localizable: z
      .boolean()
      .optional()
      .meta({ description: 'text, textarea: the value is Translate (one text per language) instead of one string' }),
    min: z
      .union([z.number(), z.string().max(35)])
      .optional()
      .meta({
        description:
          'number: smallest value; date: earliest date (YYYY-MM-DD); datetime: earliest instant (ISO 8601 with offset)',
      }),
    max: z
      .union([z.number(), z.string().max(35)])
      .optional()
      .meta({ description: 'number: largest value; date: latest date; datetime: latest instant (each ≥ min)' }),
    type: z
      .enum(['integer', 'decimal'])
      .optional()
      .meta({ description: 'number: integer or decimal (default decimal)' }),
    decimals: z
      .number()
      .int()
      .min(0)
      .max(10)
      .optional()
      .meta({ description: 'number (decimal): most digits after the point', format: 'int32' }),
    currencies: z
      .array(currencySchema)
      .min(1)
      .max(200)
      .refine(unique, 'must name each currency once')
      .optional()
      .meta({ description: 'price: the ISO 4217 currencies a price may be in (absent: any)' }),
    units: z
      .array(unitSchema)
      .min(1)
      .max(100)
      .refine(unique, 'must name each unit once')
      .optional()
      .meta({ description: 'metric: the units a measure may be in (required for metric)' }),
    enable_ia_generation: z.boolean().optional().meta({ description: 'any type: values may be generated by AI' }),
    prompt_ia_instruction: z
      .string()
      .max(4_000)
      .optional()
      .meta({ description: 'any type: the instruction given to the AI that generates values' }),
  })
  .meta({
    id: 'AttributeTypeConfig',
    description: 'Settings of the attribute type; a key that does not belong to the type is refused',
    example: { min_length: 1, max_length: 80, enable_ia_generation: false },
  });

/** An attribute's type settings. */
export type TypeConfig = z.infer<typeof typeConfigSchema>;

/** A type_config patch: keys set or (null) removed. */
const typeConfigPatchSchema = z.record(z.string().max(40), z.unknown()).meta({
  description: 'Settings to set, or remove (null); the merged result is checked against the type',
  example: { max_length: 80, pattern: null },
});

/** Why a regular expression does not compile, or undefined when it does. */
export function patternProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern, 'u');
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

type Issue = { path: (string | number)[]; message: string };

function boundsProblems(type: AttributeType, config: TypeConfig): Issue[] {
  const issues: Issue[] = [];
  const at = (key: string, message: string) => issues.push({ path: ['type_config', key], message });
  const { min, max } = config;
  const check = (value: unknown, key: 'min' | 'max') => {
    if (value === undefined) return true;
    if (type === 'number' && typeof value !== 'number')
      return (at(key, 'must be a number for number attributes'), false);
    if (type === 'number' && config.type === 'integer' && !Number.isInteger(value))
      return (at(key, 'must be a whole number for integer attributes'), false);
    if (type === 'date' && !isoDateSchema.safeParse(value).success)
      return (at(key, 'must be a date such as 2024-01-31 for date attributes'), false);
    if (type === 'datetime' && !isoDateTimeSchema.safeParse(value).success) {
      return (at(key, 'must be an ISO 8601 date and time with Z or an offset, such as 2024-01-31T12:00:00Z'), false);
    }
    return true;
  };
  const okMin = check(min, 'min');
  const okMax = check(max, 'max');
  if (okMin && okMax && min !== undefined && max !== undefined) {
    const below =
      type === 'datetime'
        ? Date.parse(max as string) < Date.parse(min as string)
        : (max as number | string) < (min as number | string);
    if (below) at('max', `must be ≥ min (${min})`);
  }
  return issues;
}

/**
 * The rules that tie type_config (and `unique`) to the type: keys of another type are refused,
 * bounds must be ordered and of the type's kind, a pattern must compile, metric needs units.
 * Each problem names its key (`type_config.max_length`).
 */
export function typeConfigProblems(a: { type?: AttributeType; type_config?: TypeConfig; unique?: boolean }): Issue[] {
  const type = a.type ?? DEFAULT_ATTRIBUTE_TYPE;
  const config = a.type_config ?? {};
  const issues: Issue[] = [];
  const at = (key: string, message: string) => issues.push({ path: ['type_config', key], message });
  const allowed = [...TYPE_CONFIG_KEYS[type], ...COMMON_CONFIG_KEYS];
  for (const key of Object.keys(config)) {
    if (!allowed.includes(key)) at(key, `is not a setting of ${type} attributes (they take ${allowed.join(', ')})`);
  }
  if (issues.length > 0) return issues;
  if (type === 'text' || type === 'textarea') {
    if (config.min_length !== undefined && config.max_length !== undefined && config.max_length < config.min_length) {
      at('max_length', `must be ≥ min_length (${config.min_length})`);
    }
    if (config.pattern !== undefined) {
      const problem = patternProblem(config.pattern);
      if (problem) at('pattern', `must be a valid regular expression: ${problem}`);
    }
  }
  if (type === 'number' || type === 'date' || type === 'datetime') issues.push(...boundsProblems(type, config));
  if (type === 'number' && config.type === 'integer' && (config.decimals ?? 0) > 0)
    at('decimals', 'must be 0 or absent for integer attributes');
  if (type === 'metric' && config.units === undefined)
    at('units', 'is required for metric attributes (the units a measure may be in)');
  if (a.unique === true && !UNIQUE_TYPES.includes(type)) {
    issues.push({
      path: ['unique'],
      message: `cannot be true for ${type} attributes (only ${UNIQUE_TYPES.join(', ')})`,
    });
  } else if (a.unique === true && config.localizable === true) {
    issues.push({ path: ['unique'], message: 'cannot be true for a localizable attribute' });
  }
  return issues;
}

/**
 * What an attribute key is written with, for the patterns that name one inside a longer path
 * (`attributes.<key>.<language>` in import mappings and export columns): letters, digits and _,
 * not starting with a digit, at most 100 characters.
 */
export const ATTRIBUTE_KEY_SOURCE = '[A-Za-z_][A-Za-z0-9_]{0,99}';

/** The key of an attribute: what product values are stored under (`attributes.<key>`). */
export const attributeKeySchema = z
  .string()
  .max(100)
  .regex(new RegExp(`^${ATTRIBUTE_KEY_SOURCE}$`), 'must be letters, digits and _ (not starting with a digit)')
  // It is a key of every product's `attributes`, where `__proto__` cannot be kept as data (the
  // gateway refuses it as any JSON key).
  .refine((key) => key !== '__proto__', 'the key __proto__ cannot be stored; rename it')
  .meta({
    description: 'Unique among live attributes; product values are stored under it (attributes.<key>)',
    example: 'voltage',
  });

const sequenceSchema = z
  .number()
  .int()
  .min(0)
  .max(2_147_483_647)
  .meta({ description: 'Position among its siblings (default 0)', format: 'int32', example: 10 });

/** A link from an attribute to a group or category: `_id` and whether products there must fill it. */
export const attributeLinkSchema = z
  .strictObject({
    _id: objectIdSchema,
    required: z
      .boolean()
      .optional()
      .meta({ description: 'Products in that group or category must fill the attribute (default false)' }),
  })
  .meta({
    id: 'AttributeLinkInput',
    description: 'A link of the attribute to an attribute group or a category, as written',
  });

/** A link as the API shows it (`required` always present). */
export const attributeLinkViewSchema = z
  .strictObject({ _id: objectIdSchema, required: z.boolean() })
  .meta({ id: 'AttributeLink', description: 'A link of the attribute to an attribute group or a category' });

const linksSchema = (what: string) =>
  z
    .array(attributeLinkSchema)
    .max(1_000)
    .refine((links) => unique(links.map((l) => l._id)), `must name each ${what} once`)
    .meta({ description: `Live ${what}s the attribute belongs to, each once` });

const typeSchema = z.enum(ATTRIBUTE_TYPES).meta({ description: 'The kind of values (default text; cannot change)' });
const associationSchema = z.enum(ATTRIBUTE_ASSOCIATIONS).meta({
  description:
    'What the attribute applies to: product (simple, kit, service, parents), sku (variations) or both (cannot change)',
});

/** The attributes filter on linked groups (`group_ids=<id>`); `expand=groups` embeds each group in its link. */
export const GROUP_IDS_FILTER = 'group_ids';
/** The attributes filter on linked categories (`category_ids=<id>`); `expand=categories` embeds each category in its link. */
export const CATEGORY_IDS_FILTER = 'category_ids';

const linksField = (what: string) =>
  field
    .of('array', { input: linksSchema(what), view: z.array(attributeLinkViewSchema).max(1_000) })
    .default([])
    // Lists reach links through the filter on their ids (`group_ids`), which also expands them.
    .listed(false);

/**
 * Attributes: named by `key`, searched by every language of name and description. type_config
 * (and `unique`) must suit the type: the rules live in the input schema, so the gateway and the
 * catalog refuse the same bodies with the same messages. `group_ids` and `category_ids` are
 * filters on the ids of the links, not fields of the record; they also carry
 * `expand=groups,categories`.
 */
export const Attribute = defineResource({
  collection: 'attributes',
  description: 'Attribute: a typed field of products',
  inputDescription: 'Attribute, as written by a caller; type_config is checked against the type',
  patchDescription: 'JSON merge patch (RFC 7396) of an attribute',
  refine: (a, ctx) => {
    for (const issue of typeConfigProblems(a))
      ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  },
  fields: {
    groups: linksField('attribute group'),
    categories: linksField('category'),
    key: field.of('string', { input: attributeKeySchema }).required(),
    name: translatedField.searchable(),
    description: translatedField.searchable(),
    type: field.of('string', { input: typeSchema }).default(DEFAULT_ATTRIBUTE_TYPE),
    type_config: field.of('object', { input: typeConfigSchema, patch: typeConfigPatchSchema }).default({}),
    unique: field.flag('No two products may hold the same value (default false; cannot change)').default(false),
    required: field.flag('Every product it applies to must fill it (default false)').default(false),
    sequence: field.of('number', { input: sequenceSchema }).default(0),
    association: field.of('string', { input: associationSchema }).required(),
    enabled: field.flag('Whether the attribute is in use (default true)').default(true),
    protected_by_lgpd: field.flag('Values are personal data under the data protection law (LGPD)').required(),
    tags: tagsField,
  },
  filters: {
    [GROUP_IDS_FILTER]: { type: 'id[]', expand: { as: 'groups', collection: 'attribute_groups' } },
    [CATEGORY_IDS_FILTER]: { type: 'id[]', expand: { as: 'categories', collection: 'categories' } },
  },
});

/** Attribute schemas: what a caller writes, patches and reads. */
export const attributeSchemas = Attribute.schemas;

/** An attribute as the API shows it. */
export type AttributeView = z.infer<typeof attributeSchemas.view>;
/** Writable fields of an attribute. */
export type AttributeInput = z.infer<typeof attributeSchemas.input>;

/** An option's value: what a product's select or multiselect value holds. */
export const optionValueSchema = z
  .string()
  .min(1)
  .max(255)
  .refine((v) => !/\p{Cc}/u.test(v), 'must not contain control characters')
  .meta({
    pattern: '^[^\\u0000-\\u001f\\u007f-\\u009f]*$',
    description: 'What product values hold; unique among the live options of the attribute',
    example: 'red',
  });

const labelSchema = nameSchema.meta({
  description: 'Label per language code; at least one',
  example: { pt: 'Vermelho', en: 'Red' },
});

/**
 * Options of select and multiselect attributes, nested under their attribute: the attribute
 * comes from the path, never from the body. `_search` covers every language of label.
 */
export const AttributeOption = defineResource({
  collection: 'attribute_options',
  description: 'Option of a select or multiselect attribute',
  inputDescription: 'Option of a select or multiselect attribute, as written by a caller',
  patchDescription: 'JSON merge patch (RFC 7396) of an attribute option',
  fields: {
    attribute_id: field
      .computed('id', objectIdSchema.meta({ description: 'The attribute the option belongs to' }))
      .shown(),
    value: field.of('string', { input: optionValueSchema }).required(),
    label: field
      .of('translate', {
        input: labelSchema,
        patch: translatePatchSchema(z.string().min(1).max(1_000)),
        view: translateSchema,
      })
      .required()
      .searchable(),
    sequence: field.of('number', { input: sequenceSchema }).default(0),
    enabled: field.flag('Whether the option may be chosen (default true)').default(true),
    tags: tagsField,
    fields: field
      .of('id[]', {
        input: idSetSchema('field').meta({ description: 'Ids of related fields (stored as given)' }),
        patch: idSetSchema('field'),
        view: z.array(objectIdSchema).max(1_000),
      })
      .default([]),
  },
});

/** Attribute option schemas; the attribute comes from the path, never from the body. */
export const attributeOptionSchemas = AttributeOption.schemas;

/** An attribute option as the API shows it. */
export type AttributeOptionView = z.infer<typeof attributeOptionSchemas.view>;
/** Writable fields of an attribute option. */
export type AttributeOptionInput = z.infer<typeof attributeOptionSchemas.input>;

/** A users group's access to an attribute group: the users of that group who may not access it. */
export const usersGroupAccessSchema = z
  .strictObject({
    _id: objectIdSchema.meta({ description: 'A users group (its existence is checked once users groups exist)' }),
    not_allowed_users: z
      .array(userIdSchema)
      .max(1_000)
      .meta({
        description: 'User ids of the users of the group who may not access the attribute group',
        example: ['auth0|5f1c2b3a4d5e6f7a8b9c0d1e'],
      }),
  })
  .meta({
    id: 'AttributeGroupUsersGroup',
    description: 'A users group of the attribute group, and its users who may not access it',
  });

const usersGroupsSchema = z
  .array(usersGroupAccessSchema)
  .max(1_000)
  .refine((groups) => unique(groups.map((g) => g._id)), 'must name each users group once')
  .meta({ description: 'Users groups that may access the group, with the users of each who may not' });

const groupKeySchema = codeSchema({ description: 'Unique among live attribute groups', example: 'technical_specs' });

/**
 * Attribute groups: named by `key`, searched by every language of name; `expand=category`.
 * `users_groups` name users groups of the workflow app, which the catalog asks about on write.
 */
export const AttributeGroup = defineResource({
  collection: 'attribute_groups',
  description: 'Attribute group',
  inputDescription: 'Attribute group, as written by a caller',
  patchDescription: 'JSON merge patch (RFC 7396) of an attribute group',
  fields: {
    category_id: field
      .of('id', {
        input: objectIdSchema.meta({ description: 'A live category the group belongs to' }),
        patch: objectIdSchema,
        view: objectIdSchema,
      })
      .expands('category', 'categories'),
    key: field.of('string', { input: groupKeySchema }).required().normalized(),
    name: nameField,
    description: translatedField,
    sequence: field.of('number', { input: sequenceSchema }).default(0),
    enabled: field.flag('Whether the group is in use (default true)').default(true),
    users_groups: field
      .of('array', { input: usersGroupsSchema, view: z.array(usersGroupAccessSchema).max(1_000) })
      .default([]),
    tags: tagsField,
  },
});

/** Attribute group schemas. */
export const attributeGroupSchemas = AttributeGroup.schemas;

/** An attribute group as the API shows it. */
export type AttributeGroupView = z.infer<typeof attributeGroupSchemas.view>;
/** Writable fields of an attribute group. */
export type AttributeGroupInput = z.infer<typeof attributeGroupSchemas.input>;

/** Fields of the attributes list: `_search` covers name and description; `group_ids`, `category_ids` filter on links. */
export const attributeListDecl = Attribute.listDecl;

/** Fields of an attribute's options list; `_search` covers label. */
export const attributeOptionListDecl = AttributeOption.listDecl;

/** Fields of the attribute groups list; `_search` covers name; `expand=category`. */
export const attributeGroupListDecl = AttributeGroup.listDecl;
