import { throwIfProblems, type QueryProblem } from './list-query.problems';
import {
  checkExpand,
  checkFilter,
  checkSearch,
  checkSort,
  defaultSortOf,
  limitProblem,
  pageProblem,
  pageTooDeep,
  parseSort,
  quote,
  resolveFilterKey,
  resolveLimits,
  skipProblem,
  skipTooDeep,
  unknownFilter,
} from './list-query.rules';
import { MAX_SKIP, type Filter, type ListLimits, type ListQuery, type SortField } from './list-query.types';
import { RESERVED_PARAMS, type ResourceDecl } from './resource.declaration';
import { splitListValues } from './list-values';

/** Every value a query parameter carries, as strings; null when its shape is not a plain value or list of them. */
function valuesOf(value: unknown): string[] | null {
  const list = Array.isArray(value) ? value : [value];
  const out: string[] = [];
  for (const v of list) {
    if (typeof v === 'string') out.push(v);
    else if (typeof v === 'number' || typeof v === 'boolean') out.push(String(v));
    else return null;
  }
  return out;
}

function wholeNumber(text: string): number | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

/**
 * Digits as a number, however large (past 2^53 it is approximate, past a double Infinity): a
 * position that far is still a whole number, refused for its depth rather than its form.
 */
function digitsValue(text: string): number | undefined {
  return /^\d+$/.test(text) ? Number(text) : undefined;
}

/**
 * Parses list query parameters (express's `req.query`) against a resource's declaration.
 * Every problem is collected and thrown as one ValidationError; nothing is silently ignored.
 */
export function parseListQuery(decl: ResourceDecl, raw: Record<string, unknown>, opts: ListLimits = {}): ListQuery {
  const limits = resolveLimits(opts);
  const params = raw ?? {};
  const problems: QueryProblem[] = [];
  const present = (key: string): boolean => Object.hasOwn(params, key) && params[key] !== undefined;

  const all = (key: string): string[] | undefined => {
    if (!present(key)) return undefined;
    const values = valuesOf(params[key]);
    if (values === null) {
      problems.push({ field: key, message: `${quote(key)} must be a plain value`, solution: `Send ${key}=value` });
      return undefined;
    }
    return values;
  };
  const single = (key: string): string | undefined => {
    const values = all(key);
    if (values === undefined) return undefined;
    if (values.length !== 1) {
      problems.push({
        field: key,
        message: `${quote(key)} was given ${values.length} times`,
        solution: `Send ${key} once`,
      });
      return undefined;
    }
    return values[0];
  };

  let limit = limits.defaultLimit;
  let limitValid = true;
  const limitText = single('limit');
  if (limitText !== undefined) {
    const n = wholeNumber(limitText);
    if (n === undefined || n < 1 || n > limits.maxLimit) {
      problems.push(limitProblem(limitText, limits.maxLimit));
      limitValid = false;
    } else limit = n;
  }

  let page = 1;
  const pageText = single('page');
  if (pageText !== undefined) {
    const n = digitsValue(pageText);
    if (n === undefined || n < 1) problems.push(pageProblem(pageText));
    else page = n;
  }

  let skip = (page - 1) * limit;
  const skipText = single('skip');
  if (skipText !== undefined) {
    const n = digitsValue(skipText);
    if (n === undefined) problems.push(skipProblem(skipText));
    else if (n > MAX_SKIP) problems.push(skipTooDeep(skipText));
    else {
      // skip wins over page: the window starts exactly where the caller asked.
      skip = n;
      page = Math.floor(skip / limit) + 1;
    }
  } else if (pageText !== undefined && skip > MAX_SKIP && limitValid) {
    // Only with the limit the caller meant: a maximum page for a refused limit would mislead.
    problems.push(pageTooDeep(pageText, limit));
  }

  let sort: SortField[] = defaultSortOf(decl);
  const sortText = single('sort');
  if (sortText !== undefined) {
    const parsed = parseSort(sortText);
    problems.push(...parsed.problems, ...checkSort(decl, parsed.sort));
    if (parsed.sort.length > 0) sort = parsed.sort;
  }

  const searchText = single('_search')?.trim();
  const search = searchText ? searchText : undefined;
  problems.push(...checkSearch(decl, search));

  // Repeating expand is meaningful (expand=brand&expand=categories): the lists are joined.
  const expand = [
    ...new Set(
      (all('expand') ?? [])
        .flatMap((v) => v.split(','))
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    ),
  ];
  problems.push(...checkExpand(decl, expand));

  const filters: Filter[] = [];
  for (const key of Object.keys(params)) {
    if (RESERVED_PARAMS.includes(key) || !present(key)) continue;
    const target = resolveFilterKey(decl, key);
    if (!target) {
      problems.push(unknownFilter(key));
      continue;
    }
    const values = all(key);
    if (values === undefined) continue;
    let filterValues: string[];
    if (target.op === 'in' || target.op === 'nin') {
      // Repeating a set filter is meaningful: its lists are joined. `\,` is a comma inside a value.
      const joined = values.flatMap(splitListValues);
      filterValues = joined.every((v) => v === '') ? [] : joined;
    } else if (values.length !== 1) {
      problems.push({
        field: key,
        message: `Filter ${quote(key)} was given ${values.length} times`,
        solution: `Send ${key} once; use ${target.field}_in=a,b for several values`,
        filter: true,
      });
      continue;
    } else {
      filterValues = values;
    }
    const filter: Filter = { field: target.field, op: target.op, values: filterValues };
    problems.push(...checkFilter(decl, filter));
    filters.push(filter);
  }

  throwIfProblems(decl, problems);
  const query: ListQuery = { page, limit, skip, sort, filters, expand };
  if (search !== undefined) query.search = search;
  return query;
}
