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
  in: 'is one of these comma-separated values',
  nin: 'is none of these comma-separated values',
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
  const expandable = Object.values(decl.fields).flatMap((f) => (f.expand ? [f.expand.as] : []));
  if (expandable.length) {
    const one = `(${expandable.join('|')})`;
    shape.expand = z
      .string()
      .regex(new RegExp(`^${one}(,${one})*$`))
      .max(1000)
      .optional()
      .meta({ description: `Related records to embed: ${expandable.join(', ')}` });
  }
  for (const [name, f] of Object.entries(decl.fields)) {
    if (!isFilterable(f)) continue;
    for (const op of opsFor(f.type)) {
      const [key, schema] = filterParam(name, f.type, op);
      shape[key] = schema;
    }
  }
  return z.object(shape);
}
