import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { toSqlDate } from './field.values';
import type { Filter, ListQuery, SortField } from './list-query.types';
import { validateListQuery } from './list-query.validator';
import {
  ID_FIELD,
  columnOf,
  isArrayType,
  isJsonType,
  searchableFields,
  type FieldType,
  type ResourceDecl,
} from './resource.declaration';

/** Options of the SQL builder. */
export interface ApplyListQueryOptions {
  /**
   * The unaccent function `_search` calls (default `unaccent`, found through search_path). Name an
   * IMMUTABLE wrapper here (e.g. `public.immutable_unaccent`) when an index is built on it, so the
   * query's expression matches the index's. A named function must be IMMUTABLE: the search
   * pattern is then written inline, so Postgres folds it to a constant when it plans the query and
   * estimates the match from the column's statistics (instead of a blind guess that picks bad plans).
   */
  unaccent?: string;
  /**
   * Searchable fields whose folded text, `lower(<unaccent>(text))`, is stored in a column of its
   * own (a generated column), by field: `_search` compares that column with a plain LIKE, which a
   * trigram index on the column serves, and rows are not folded again when they are checked.
   */
  folded?: Record<string, string>;
}

const QUALIFIED_NAME = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?$/;
/** A run of three letters or digits: what a trigram index can look up. */
const TRIGRAM = /[\p{L}\p{N}]{3}/u;

/** Hands out parameter names not yet used on this query builder (applyListQuery may run twice on one). */
class Params {
  readonly values: Record<string, unknown> = {};
  private n = 0;
  constructor(private readonly taken: Record<string, unknown>) {}

  add(value: unknown): string {
    let name: string;
    do name = `lq_${this.n++}`;
    while (Object.hasOwn(this.taken, name) || Object.hasOwn(this.values, name));
    this.values[name] = value;
    return `:${name}`;
  }
}

/**
 * The typed parameter for one value. Numbers and dates are cast explicitly so an integer column
 * compared with 1.5 never fails to parse; other types take the column's own type from Postgres.
 */
function typed(type: FieldType, param: string, array = false): string {
  const suffix = array ? '[]' : '';
  if (type === 'number') return `CAST(${param} AS numeric${suffix})`;
  if (type === 'date') return `CAST(${param} AS timestamptz${suffix})`;
  return param;
}

function sqlValue(type: FieldType, v: string): string {
  return type === 'date' ? toSqlDate(v) : v;
}

function filterSql(col: string, type: FieldType, f: Filter, params: Params): string {
  if (f.op === 'exists') {
    const present = f.values[0] === 'true';
    // A JSON null is as absent as an SQL NULL.
    if (isJsonType(type))
      return present
        ? `(${col} IS NOT NULL AND jsonb_typeof(${col}) <> 'null')`
        : `(${col} IS NULL OR jsonb_typeof(${col}) = 'null')`;
    return present ? `${col} IS NOT NULL` : `${col} IS NULL`;
  }
  const values = f.values.map((v) => sqlValue(type, v));
  if (isArrayType(type)) {
    // @> and && rather than = ANY(col): same meaning, and a GIN index on the column serves them.
    const list = params.add(f.op === 'eq' || f.op === 'ne' ? [values[0]] : values);
    switch (f.op) {
      case 'eq':
        return `${col} @> ${list}`;
      case 'in':
        return `${col} && ${list}`;
      case 'ne':
        return `(${col} IS NULL OR NOT (${col} @> ${list}))`;
      case 'nin':
        return `(${col} IS NULL OR NOT (${col} && ${list}))`;
      default:
        throw new Error(`operator ${f.op} on an array field`);
    }
  }
  switch (f.op) {
    case 'in':
      return `${col} = ANY(${typed(type, params.add(values), true)})`;
    // Negations keep records without a value: they are not equal to v either.
    case 'nin':
      return `(${col} IS NULL OR NOT (${col} = ANY(${typed(type, params.add(values), true)})))`;
    case 'ne':
      return `${col} IS DISTINCT FROM ${typed(type, params.add(values[0]))}`;
    default: {
      const sqlOp = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' }[f.op];
      return `${col} ${sqlOp} ${typed(type, params.add(values[0]))}`;
    }
  }
}

/**
 * The `_search` condition: the term, folded (lowercase, unaccented) and with its LIKE wildcards
 * escaped, as a substring of any searchable field, folded the same way.
 */
function searchSql(
  qb: SelectQueryBuilder<ObjectLiteral>,
  decl: ResourceDecl,
  alias: string,
  search: string,
  params: Params,
  opts: ApplyListQueryOptions,
): string {
  const unaccent = opts.unaccent ?? 'unaccent';
  const norm = (expr: string): string => `lower(${unaccent}(${expr}))`;
  // Wildcards are escaped after unaccent: it turns fullwidth ％ and ＿ into % and _.
  const escaped = `replace(replace(replace(${norm(`CAST(${params.add(search)} AS text)`)}, chr(92), chr(92) || chr(92)), '%', chr(92) || '%'), '_', chr(92) || '_')`;
  // Default unaccent is STABLE: a scalar subquery computes the pattern once per query instead of
  // once per row. An IMMUTABLE one lets the pattern stay inline, where the planner sees its value.
  const pattern = opts.unaccent === undefined ? `(SELECT '%' || ${escaped} || '%')` : `('%' || ${escaped} || '%')`;
  // pg_trgm takes trigrams only from runs of three letters or digits. Without one, a trigram index
  // hands back most of the table as a lossy bitmap, every row rechecked (~8 s at 1M products, a
  // sequential scan ~1 s): the text is then written as an expression no index matches.
  const indexed = (text: string): string => (TRIGRAM.test(search) ? text : `(${text} || '')`);
  let n = 0;
  const parts = searchableFields(decl).map((field) => {
    const folded = opts.folded?.[field];
    if (folded !== undefined) return `${indexed(`${qb.escape(alias)}.${qb.escape(folded)}`)} LIKE ${pattern}`;
    const col = `${qb.escape(alias)}.${qb.escape(columnOf(decl, field))}`;
    const type = decl.fields[field].type;
    const sub = qb.escape(`lq_search_${n++}`);
    if (type === 'translate') {
      // CASE guards jsonb_each_text, which fails on anything but an object.
      return `(CASE WHEN jsonb_typeof(${col}) = 'object' THEN EXISTS (SELECT 1 FROM jsonb_each_text(${col}) AS ${sub}("k", "v") WHERE ${norm(`${sub}."v"`)} LIKE ${pattern}) ELSE false END)`;
    }
    if (isArrayType(type)) {
      return `EXISTS (SELECT 1 FROM unnest(${col}) AS ${sub}("v") WHERE ${norm(`${sub}."v"`)} LIKE ${pattern})`;
    }
    return `${indexed(norm(col))} LIKE ${pattern}`;
  });
  return parts.join(' OR ');
}

/** Sort keys with `_id` appended in the last key's direction, so rows that tie keep one order across pages. */
export function sortWithTieBreak(sort: SortField[]): SortField[] {
  if (sort.some((s) => s.field === ID_FIELD)) return sort;
  const last = sort[sort.length - 1];
  return [...sort, { field: ID_FIELD, direction: last?.direction ?? 'desc' }];
}

/**
 * Adds the query's filters and search (one bracketed AND condition), its ORDER BY (replacing any
 * before) and OFFSET/LIMIT to a query builder whose main alias is `alias`. Values are always bound
 * parameters. The query is validated again (except the page-size cap), so an unchecked one never
 * reaches SQL.
 */
export function applyListQuery<T extends ObjectLiteral>(
  qb: SelectQueryBuilder<T>,
  decl: ResourceDecl,
  q: ListQuery,
  alias: string,
  opts: ApplyListQueryOptions = {},
): SelectQueryBuilder<T> {
  if (opts.unaccent !== undefined && !QUALIFIED_NAME.test(opts.unaccent)) {
    throw new Error(`unaccent must be a plain or schema-qualified function name, got ${opts.unaccent}`);
  }
  const query = validateListQuery(decl, q, { maxLimit: Number.MAX_SAFE_INTEGER });
  const params = new Params(qb.getParameters());
  const col = (field: string): string => `${qb.escape(alias)}.${qb.escape(columnOf(decl, field))}`;

  const conditions = query.filters.map((f) => {
    const field = decl.fields[f.field];
    // A field stored in NFC is compared with values in NFC: an NFD spelling finds the same text.
    const filter = field.normalized ? { ...f, values: f.values.map((v) => v.normalize('NFC')) } : f;
    return filterSql(col(f.field), field.type, filter, params);
  });
  if (query.search !== undefined) conditions.push(searchSql(qb, decl, alias, query.search, params, opts));
  if (conditions.length > 0) qb.andWhere(`(${conditions.map((c) => `(${c})`).join(' AND ')})`, params.values);

  sortWithTieBreak(query.sort).forEach((s, i) => {
    const order = s.direction === 'desc' ? 'DESC' : 'ASC';
    if (i === 0) qb.orderBy(col(s.field), order);
    else qb.addOrderBy(col(s.field), order);
  });
  return qb.offset(query.skip).limit(query.limit);
}
