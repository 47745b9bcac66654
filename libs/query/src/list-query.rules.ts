import { expectedValue, isValidValue } from './field.values';
import { FILTER_SYNTAX, type QueryProblem } from './list-query.problems';
import {
  DEFAULT_LIMIT,
  FILTER_OPS,
  MAX_LIMIT,
  MAX_SKIP,
  filterKey,
  type Filter,
  type FilterOp,
  type ListLimits,
  type SortField,
} from './list-query.types';
import {
  DEFAULT_SORT,
  expandables,
  isArrayType,
  isFilterable,
  isJsonType,
  isSortable,
  searchableFields,
  sortableFields,
  type FieldType,
  type ResourceDecl,
} from './resource.declaration';

const SET_OPS: FilterOp[] = ['eq', 'in', 'nin', 'ne', 'exists'];
const RANGE_OPS: FilterOp[] = ['gt', 'gte', 'lt', 'lte'];

/** The operators a field type accepts; ranges only where order means something (ids are time-ordered). */
export function opsFor(type: FieldType): FilterOp[] {
  if (isJsonType(type)) return ['exists'];
  if (type === 'number' || type === 'date' || type === 'id') return [...SET_OPS, ...RANGE_OPS];
  return SET_OPS;
}

/** A user value inside a message, shortened so an error never echoes a whole payload. */
export function quote(v: string): string {
  return `'${v.length > 60 ? `${v.slice(0, 57)}...` : v}'`;
}

/** The page-size limits in force. */
export function resolveLimits(opts: ListLimits = {}): Required<ListLimits> {
  const maxLimit = opts.maxLimit ?? MAX_LIMIT;
  const defaultLimit = opts.defaultLimit ?? Math.min(DEFAULT_LIMIT, maxLimit);
  if (!Number.isSafeInteger(maxLimit) || maxLimit < 1)
    throw new Error(`maxLimit must be a whole number from 1, got ${maxLimit}`);
  if (!Number.isSafeInteger(defaultLimit) || defaultLimit < 1 || defaultLimit > maxLimit) {
    throw new Error(`defaultLimit must be a whole number from 1 to maxLimit (${maxLimit}), got ${defaultLimit}`);
  }
  return { maxLimit, defaultLimit };
}

/** Splits a query key into field and operator (`created_at_gte` → created_at, gte); null when no field matches. */
export function resolveFilterKey(decl: ResourceDecl, key: string): { field: string; op: FilterOp } | null {
  if (Object.hasOwn(decl.fields, key)) return { field: key, op: 'eq' };
  const cut = key.lastIndexOf('_');
  if (cut <= 0) return null;
  const field = key.slice(0, cut);
  const op = key.slice(cut + 1) as FilterOp;
  // `_eq` says equality explicitly, as the bare form does.
  if (!FILTER_OPS.includes(op) || !Object.hasOwn(decl.fields, field)) return null;
  return { field, op };
}

/** Problem for a query key that names no filter at all. */
export function unknownFilter(key: string): QueryProblem {
  return { field: key, message: `Unknown filter ${quote(key)}`, solution: FILTER_SYNTAX, filter: true };
}

/** Checks one filter against the declaration: field, operator, number and shape of values. */
export function checkFilter(decl: ResourceDecl, filter: Filter): QueryProblem[] {
  const key = filterKey(filter);
  const fd = Object.hasOwn(decl.fields, filter.field) ? decl.fields[filter.field] : undefined;
  if (!fd) return [unknownFilter(key)];
  const problem = (message: string, solution = FILTER_SYNTAX): QueryProblem[] => [
    { field: key, message, solution, filter: true },
  ];
  if (!isFilterable(fd))
    return problem(`Field ${quote(filter.field)} cannot be filtered`, 'Filter on one of the allowed fields');
  const ops = opsFor(fd.type);
  if (!ops.includes(filter.op)) {
    const forms = ops.map((op) => `${filterKey({ field: filter.field, op })}=`).join(', ');
    return problem(
      `Operator '${filter.op}' is not allowed on ${quote(filter.field)} (${fd.type}); use ${forms}`,
      `Use one of ${forms}`,
    );
  }
  const { values } = filter;
  if (filter.op === 'in' || filter.op === 'nin') {
    if (values.length === 0) return problem(`Filter ${quote(key)} needs at least one value`, `Send ${key}=a,b`);
    if (values.some((v) => v === ''))
      return problem(`Filter ${quote(key)} has an empty value in its list`, `Send ${key}=a,b without empty items`);
  } else if (values.length !== 1) {
    return problem(
      `Filter ${quote(key)} takes exactly one value, got ${values.length}`,
      `Send ${key} once; use ${filter.field}_in=a,b for several values`,
    );
  }
  if (filter.op === 'exists') {
    return values[0] === 'true' || values[0] === 'false'
      ? []
      : problem(
          `Filter ${quote(key)} expects true or false, got ${quote(values[0])}`,
          `Send ${key}=true or ${key}=false`,
        );
  }
  const bad = values.find((v) => !isValidValue(fd.type, v));
  if (bad !== undefined) {
    const what = expectedValue(fd.type);
    const hint = fd.type === 'date' ? ' (encode a + offset as %2B)' : '';
    return problem(`Filter ${quote(key)} expects ${what}, got ${quote(bad)}`, `Send ${key} as ${what}${hint}`);
  }
  if (filter.op === 'eq' && isArrayType(fd.type) && values[0] === '') {
    return problem(
      `Filter ${quote(key)} needs a value to look for`,
      `Send ${key}=v to match records whose ${filter.field} contains v`,
    );
  }
  return [];
}

/** Parses the `sort` parameter's syntax (`-created_at,code`) without checking the fields. */
export function parseSort(text: string): { sort: SortField[]; problems: QueryProblem[] } {
  const sort: SortField[] = [];
  const problems: QueryProblem[] = [];
  for (const raw of text.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    const direction = item.startsWith('-') ? 'desc' : 'asc';
    const field = item.replace(/^[-+]/, '');
    if (field === '') {
      problems.push({
        field: 'sort',
        message: `sort item ${quote(item)} names no field`,
        solution: 'Send sort=-created_at,code',
      });
      continue;
    }
    sort.push({ field, direction });
  }
  return { sort, problems };
}

/** The declaration's default sort as sort keys. */
export function defaultSortOf(decl: ResourceDecl): SortField[] {
  return parseSort(decl.defaultSort ?? DEFAULT_SORT).sort;
}

/** Checks sort keys: known, sortable, each once, with a valid direction. */
export function checkSort(decl: ResourceDecl, sort: SortField[]): QueryProblem[] {
  const problems: QueryProblem[] = [];
  const sortable = sortableFields(decl);
  const solution = `Sort by ${sortable.join(', ')}; prefix a field with - for descending`;
  const seen = new Set<string>();
  for (const s of sort) {
    const f = Object.hasOwn(decl.fields, s.field) ? decl.fields[s.field] : undefined;
    if (!f || !isSortable(f)) {
      problems.push({
        field: 'sort',
        message: `Cannot sort by ${quote(String(s.field))}. Sortable fields: ${sortable.join(', ')}`,
        solution,
      });
    } else if (s.direction !== 'asc' && s.direction !== 'desc') {
      problems.push({ field: 'sort', message: `Sort direction of ${quote(s.field)} must be asc or desc`, solution });
    } else if (seen.has(s.field)) {
      problems.push({
        field: 'sort',
        message: `sort names ${quote(s.field)} twice`,
        solution: 'Name each field once in sort',
      });
    }
    seen.add(s.field);
  }
  return problems;
}

/** Checks that `_search` can run on this resource. */
export function checkSearch(decl: ResourceDecl, search: string | undefined): QueryProblem[] {
  if (search === undefined || searchableFields(decl).length > 0) return [];
  return [
    {
      field: '_search',
      message: `The collection '${decl.collection}' has no searchable fields, so _search is not supported`,
      solution: 'Remove _search and use filters instead',
    },
  ];
}

/** Checks every `expand` name against the declared ones. */
export function checkExpand(decl: ResourceDecl, expand: string[]): QueryProblem[] {
  const allowed = expandables(decl).map((e) => e.as);
  return expand
    .filter((name) => !allowed.includes(name))
    .map((name) =>
      allowed.length === 0
        ? {
            field: 'expand',
            message: `The collection '${decl.collection}' has nothing to expand (got ${quote(name)})`,
            solution: 'Remove expand',
          }
        : {
            field: 'expand',
            message: `Cannot expand ${quote(name)}. Allowed: ${allowed.join(', ')}`,
            solution: `Send expand as a comma list of ${allowed.join(', ')}`,
          },
    );
}

/**
 * Checks and settles the window of a structured query. As in the query string, skip wins: a
 * positive skip gives the page; a zero or missing skip (proto3's default) is derived from page.
 * The window may start at most MAX_SKIP records in, whichever way it is given.
 */
export function settleWindow(
  w: { page?: unknown; limit?: unknown; skip?: unknown },
  limits: Required<ListLimits>,
): { page: number; limit: number; skip: number; problems: QueryProblem[] } {
  const problems: QueryProblem[] = [];
  const whole = (v: unknown, min: number): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= min;
  const limit = whole(w.limit, 1) && w.limit <= limits.maxLimit ? w.limit : undefined;
  if (limit === undefined) problems.push(limitProblem(String(w.limit), limits.maxLimit));
  const skipGiven = w.skip !== undefined && w.skip !== null && w.skip !== 0;
  if (skipGiven && !whole(w.skip, 0)) problems.push(skipProblem(String(w.skip)));
  else if (skipGiven && (w.skip as number) > MAX_SKIP) problems.push(skipTooDeep(String(w.skip)));
  const page = w.page === undefined || w.page === null ? 1 : w.page;
  if (!skipGiven && !whole(page, 1)) problems.push(pageProblem(String(page)));
  else if (!skipGiven && limit !== undefined && ((page as number) - 1) * limit > MAX_SKIP)
    problems.push(pageTooDeep(String(page), limit));
  if (problems.length > 0 || limit === undefined) return { page: 1, limit: 1, skip: 0, problems };
  if (skipGiven) {
    const skip = w.skip as number;
    return { page: Math.floor(skip / limit) + 1, limit, skip, problems };
  }
  return { page: page as number, limit, skip: ((page as number) - 1) * limit, problems };
}

/** How to read past the deepest window a list allows: by `_id`, which any depth answers as fast. */
export const DEEP_PAGING =
  'To read further, page by _id instead: send sort=_id with _id_gt=<the last _id of the previous page> (and the same filters) for each next page';

/** The last page a window of `limit` records may ask for: its skip, (page - 1) × limit, stays within MAX_SKIP. */
export function maxPage(limit: number): number {
  return Math.floor(MAX_SKIP / limit) + 1;
}

/** Problem for a bad `page`. */
export function pageProblem(got: string): QueryProblem {
  return {
    field: 'page',
    message: `page must be a whole number from 1, got ${quote(got)}`,
    solution: 'Send page=1 for the first page',
  };
}

/** Problem for a `page` whose window would start past MAX_SKIP records. */
export function pageTooDeep(got: string, limit: number): QueryProblem {
  return {
    field: 'page',
    message: `page may be at most ${maxPage(limit)} with limit ${limit} (a page starts at most ${MAX_SKIP} records in), got ${quote(got)}`,
    solution: DEEP_PAGING,
  };
}

/** Problem for a bad `limit`. */
export function limitProblem(got: string, max: number): QueryProblem {
  return {
    field: 'limit',
    message: `limit must be a whole number from 1 to ${max}, got ${quote(got)}`,
    solution: `Send a limit from 1 to ${max} and page through the rest`,
  };
}

/** Problem for a bad `skip`. */
export function skipProblem(got: string): QueryProblem {
  return {
    field: 'skip',
    message: `skip must be a whole number from 0, got ${quote(got)}`,
    solution: 'Send skip=0 or more, or use page instead',
  };
}

/** Problem for a `skip` past MAX_SKIP. */
export function skipTooDeep(got: string): QueryProblem {
  return {
    field: 'skip',
    message: `skip may be at most ${MAX_SKIP}, got ${quote(got)}`,
    solution: DEEP_PAGING,
  };
}
