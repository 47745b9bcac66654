import { z } from 'zod';
import {
  DEEP_PAGING,
  DEFAULT_LIMIT,
  DEFAULT_SORT,
  MAX_SKIP,
  isFilterable,
  maxPage,
  opsFor,
  sortableFields,
  type FieldType,
  type FilterOp,
  type ResourceDecl,
} from '@pim/query';

/** Any text without NUL: Postgres text cannot hold NUL, so the list parser refuses it. */
const NO_NUL = '^[^\\u0000]*$';

/** What the list parser accepts for one value of a field, as an OpenAPI query schema. */
function valueSchema(type: FieldType): z.ZodType {
  switch (type) {
    case 'boolean':
      return z.boolean();
    case 'number':
      return z.number();
    case 'date':
      return z
        .string()
        .regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)?)?$/)
        .max(35)
        .meta({ example: '2026-01-31T12:00:00.000Z' });
    case 'id':
    case 'id[]':
      return z
        .string()
        .regex(/^[0-9a-f]{24}$/)
        .max(24)
        .meta({ example: '6740a1b2c3d4e5f601234567' });
    default:
      return z.string().max(1000).meta({ pattern: NO_NUL });
  }
}

/** A comma-separated list of values (the `_in` and `_nin` filters). */
function listSchema(type: FieldType): z.ZodType {
  switch (type) {
    case 'boolean':
      return z
        .string()
        .regex(/^(true|false)(,(true|false))*$/)
        .max(1000)
        .meta({ example: 'true,false' });
    case 'id':
    case 'id[]':
      return z
        .string()
        .regex(/^[0-9a-f]{24}(,[0-9a-f]{24})*$/)
        .max(8000)
        .meta({ example: '6740a1b2c3d4e5f601234567,6740a1b2c3d4e5f601234568' });
    default:
      return z.string().max(8000).meta({ pattern: NO_NUL });
  }
}

const OP_WORDS: Record<FilterOp, string> = {
  eq: 'equals (on arrays: contains)',
  ne: 'differs from',
  in: 'is one of these comma-separated values (write a comma inside a value as \\, and a backslash as \\\\)',
  nin: 'is none of these comma-separated values (write a comma inside a value as \\, and a backslash as \\\\)',
  gt: 'is greater than',
  gte: 'is at least',
  lt: 'is less than',
  lte: 'is at most',
  exists: 'is set (true) or missing (false)',
};

/** The query parameters of one filter operator on one field. */
function filterParam(name: string, type: FieldType, op: FilterOp): [string, z.ZodType] {
  const key = op === 'eq' ? name : `${name}_${op}`;
  const schema = op === 'exists' ? z.boolean() : op === 'in' || op === 'nin' ? listSchema(type) : valueSchema(type);
  return [key, schema.optional().meta({ description: `Only records whose ${name} ${OP_WORDS[op]}` })];
}

/**
 * The `expand` parameter of a resource whose records name others it can embed (`brand`,
 * `categories`…), comma-separated; undefined when it names none. Lists and reads by id take it.
 */
export function expandParam(decl: ResourceDecl): z.ZodType | undefined {
  const expandable = Object.values(decl.fields).flatMap((f) => (f.expand ? [f.expand.as] : []));
  if (expandable.length === 0) return undefined;
  const one = `(${expandable.join('|')})`;
  return z
    .string()
    .regex(
      new RegExp(`^${one}(,${one})*$`),
      `must name records to embed among ${expandable.join(', ')}, separated by commas`,
    )
    .max(1000)
    .optional()
    .meta({ description: `Related records to embed: ${expandable.join(', ')}` });
}

/** The OpenAPI description of a list's query parameters, derived from the resource declaration. */
export function listQuerySchema(decl: ResourceDecl, maxLimit: number): z.ZodObject {
  const shape: Record<string, z.ZodType> = {
    page: z
      .number()
      .int()
      .min(1)
      .max(maxPage(1))
      .optional()
      .meta({
        format: 'int64',
        description:
          `Page number, from 1. A page starts at most ${MAX_SKIP} records in: (page - 1) × limit may be at most ${MAX_SKIP} ` +
          `(page ${maxPage(DEFAULT_LIMIT)} with limit ${DEFAULT_LIMIT}, ${maxPage(1)} with limit 1). ${DEEP_PAGING}.`,
        example: 1,
      }),
    limit: z
      .number()
      .int()
      .min(1)
      .max(maxLimit)
      .optional()
      .meta({ format: 'int32', description: `Page size (default 25, at most ${maxLimit})`, example: 25 }),
    skip: z
      .number()
      .int()
      .min(0)
      .max(MAX_SKIP)
      .optional()
      .meta({
        format: 'int32',
        description: `Records to skip (instead of page; it wins when both are sent), at most ${MAX_SKIP}. ${DEEP_PAGING}.`,
        example: 0,
      }),
  };
  const sortable = sortableFields(decl);
  if (sortable.length) {
    const item = `[-+]?(${sortable.join('|')})`;
    shape.sort = z
      .string()
      .regex(new RegExp(`^${item}(,${item})*$`))
      .max(1000)
      .optional()
      .meta({
        description: `Comma-separated fields; a leading - sorts descending (default ${decl.defaultSort ?? DEFAULT_SORT}). Sortable: ${sortable.join(', ')}`,
        example: decl.defaultSort ?? DEFAULT_SORT,
      });
  }
  const searchable = Object.entries(decl.fields)
    .filter(([, f]) => f.searchable)
    .map(([n]) => n);
  if (searchable.length) {
    shape._search = z
      .string()
      .max(1000)
      .meta({ pattern: NO_NUL })
      .optional()
      .meta({ description: `Case- and accent-insensitive text over: ${searchable.join(', ')}` });
  }
  const expand = expandParam(decl);
  if (expand) shape.expand = expand;
  for (const [name, f] of Object.entries(decl.fields)) {
    if (!isFilterable(f)) continue;
    for (const op of opsFor(f.type)) {
      const [key, schema] = filterParam(name, f.type, op);
      shape[key] = schema;
    }
  }
  return z.object(shape);
}

// The filters of a list are documented as one `filter` parameter (style form, exploded: each of its
// properties is a query parameter of its own, `?code=a1&created_at_gte=2026-01-01`) whose schema
// names the filterable fields once: a property per field (`<field>=v`) and a pattern per group of
// fields that take the same operators (`^(code|name)_(in|nin)$`). The list parser reads the same
// keys as before; only their description is shared. Every field's value schema is one of a few
// shared components below.

/** The shared value schemas of filters, by component name. */
export const FILTER_VALUES: Record<string, z.ZodType> = {
  FilterText: valueSchema('string').meta({
    description: 'A text value, compared as written (on an array field: one of its elements)',
  }),
  FilterNumber: valueSchema('number').meta({ description: 'A number' }),
  FilterBoolean: valueSchema('boolean').meta({ description: 'true or false' }),
  FilterDate: valueSchema('date').meta({
    description: 'An ISO 8601 date (2026-01-31) or date-time (2026-01-31T12:00:00.000Z)',
  }),
  FilterId: valueSchema('id').meta({ description: 'A record id: 24 lowercase hex characters' }),
  FilterList: listSchema('string').meta({ description: `Values separated by commas: ${OP_WORDS.in}` }),
  FilterBooleanList: listSchema('boolean').meta({ description: 'true, false or both, separated by a comma' }),
  FilterIdList: listSchema('id').meta({ description: 'Record ids separated by commas' }),
  FilterExists: z.boolean().meta({ description: 'true: the field is set; false: it is missing' }),
};

type FilterValue = keyof typeof FILTER_VALUES;

/** The value schema of one value of a field. */
function valueName(type: FieldType): FilterValue {
  if (type === 'boolean') return 'FilterBoolean';
  if (type === 'number') return 'FilterNumber';
  if (type === 'date') return 'FilterDate';
  if (type === 'id' || type === 'id[]') return 'FilterId';
  return 'FilterText';
}

/** The value schema of a comma-separated list of values of a field (`_in`, `_nin`). */
function listName(type: FieldType): FilterValue {
  if (type === 'boolean') return 'FilterBooleanList';
  if (type === 'id' || type === 'id[]') return 'FilterIdList';
  return 'FilterList';
}

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The filter grammar of every list, said once (the document's description shows it). */
export const FILTER_GRAMMAR =
  'Every list takes `page` and `limit` (or `skip`), `sort`, `_search` and, where its records name others, `expand`, ' +
  'and filters. Each filter is a query parameter of its own and every one given applies: ' +
  `\`<field>=v\`: the field ${OP_WORDS.eq}; ` +
  (['ne', 'in', 'nin', 'exists', 'gt', 'gte', 'lt', 'lte'] as const)
    .map((op) => `\`<field>_${op}\`: ${OP_WORDS[op]}`)
    .join('; ') +
  '. The ranges (`_gt`, `_gte`, `_lt`, `_lte`) apply to number, date and id fields (ids grow with time). ' +
  "A list's `filter` parameter names the fields it filters on (the properties of its `…Filter` schema) and the operators each takes (its patternProperties).";

/** A list's filter schema: a property per field's equality filter, a pattern per group of operator keys. */
function filterSchema(labels: string, decl: ResourceDecl, described: ReadonlySet<string>): Record<string, unknown> {
  const properties: Record<string, { $ref: string }> = {};
  const groups = new Map<string, { value: FilterValue; ops: FilterOp[]; fields: string[] }>();
  for (const [name, f] of Object.entries(decl.fields)) {
    if (!isFilterable(f)) continue;
    // A key the list documents as its own parameter is left out here.
    const ops = opsFor(f.type).filter((op) => !described.has(op === 'eq' ? name : `${name}_${op}`));
    if (ops.includes('eq')) properties[name] = schemaRef(valueName(f.type));
    const kinds: [FilterValue, FilterOp[]][] = [
      [valueName(f.type), ops.filter((op) => !['eq', 'in', 'nin', 'exists'].includes(op))],
      [listName(f.type), ops.filter((op) => op === 'in' || op === 'nin')],
      ['FilterExists', ops.filter((op) => op === 'exists')],
    ];
    for (const [value, kindOps] of kinds) {
      if (kindOps.length === 0) continue;
      const key = `${value} ${kindOps.join('|')}`;
      const group = groups.get(key) ?? { value, ops: kindOps, fields: [] };
      group.fields.push(name);
      groups.set(key, group);
    }
  }
  return {
    type: 'object',
    description: `Filters of the ${labels} list: \`<field>=v\` for each property, \`<field>_<operator>=v\` for each key a pattern matches`,
    properties,
    patternProperties: Object.fromEntries(
      [...groups.values()].map((g) => [
        `^(${g.fields.map(escapeRegex).join('|')})_(${g.ops.join('|')})$`,
        schemaRef(g.value),
      ]),
    ),
    additionalProperties: false,
  };
}

/** A list's query as the OpenAPI document describes it. */
export interface ListQueryDoc {
  /** `page`, `limit` and `skip`: the same on every list of a document (shared parameters). */
  paging: Record<'page' | 'limit' | 'skip', z.ZodType>;
  /** Parameters described one by one: `sort`, `_search`, `expand` and the list's own. */
  query: z.ZodObject;
  /** The `filter` parameter's schema, named `<id>Filter` in the document. */
  filter: { id: string; schema: Record<string, unknown> };
}

/**
 * The OpenAPI description of a list's query: `id` names its filter schema (`Order` → OrderFilter),
 * `labels` its records in words; `own` are parameters the list documents one by one (filters the
 * generic wording would get wrong), left out of the filter schema.
 */
export function listQueryDoc(
  id: string,
  labels: string,
  decl: ResourceDecl,
  maxLimit: number,
  own: Record<string, z.ZodType> = {},
): ListQueryDoc {
  const { page, limit, skip, ...rest } = listQuerySchema(decl, maxLimit).shape as Record<string, z.ZodType>;
  const described = Object.fromEntries(
    Object.entries(rest).filter(([key]) => key === 'sort' || key === '_search' || key === 'expand'),
  );
  return {
    paging: { page, limit, skip },
    query: z.object({ ...described, ...own }),
    filter: { id: `${id}Filter`, schema: filterSchema(labels, decl, new Set(Object.keys(own))) },
  };
}
