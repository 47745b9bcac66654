import { throwIfProblems, type QueryProblem } from './list-query.problems';
import {
  checkExpand,
  checkFilter,
  checkSearch,
  checkSort,
  defaultSortOf,
  resolveLimits,
  settleWindow,
} from './list-query.rules';
import { FILTER_OPS, type Filter, type ListLimits, type ListQuery, type SortField } from './list-query.types';
import type { ResourceDecl } from './resource.declaration';

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

/**
 * Re-validates a structured query received over the wire and returns it normalized: page and
 * skip agree (a positive skip wins, else skip comes from page), an empty sort becomes the
 * default, an empty search none, missing lists empty (proto3 sends defaults).
 */
export function validateListQuery(
  decl: ResourceDecl,
  q: ListQuery,
  opts: Pick<ListLimits, 'maxLimit'> = {},
): ListQuery {
  const limits = resolveLimits({ maxLimit: opts.maxLimit, defaultLimit: 1 });
  const problems: QueryProblem[] = [];
  if (typeof q !== 'object' || q === null) {
    throwIfProblems(decl, [
      { field: '(query)', message: 'the list query must be an object', solution: 'Send a ListQuery' },
    ]);
  }
  const win = settleWindow(q, limits);
  problems.push(...win.problems);

  const rawSort: unknown = q.sort ?? [];
  let sort: SortField[] = [];
  if (
    !Array.isArray(rawSort) ||
    rawSort.some((s) => typeof s !== 'object' || s === null || typeof s.field !== 'string')
  ) {
    problems.push({
      field: 'sort',
      message: 'sort must be a list of {field, direction}',
      solution: 'Send sort as [{field, direction}]',
    });
  } else {
    sort = rawSort.map((s: SortField) => ({ field: s.field, direction: s.direction }));
    problems.push(...checkSort(decl, sort));
  }
  if (sort.length === 0) sort = defaultSortOf(decl);

  let search: string | undefined;
  if (q.search !== undefined && q.search !== null) {
    if (typeof q.search !== 'string') {
      problems.push({ field: '_search', message: '_search must be a string', solution: 'Send _search as text' });
    } else if (q.search.trim() !== '') {
      search = q.search.trim();
      problems.push(...checkSearch(decl, search));
    }
  }

  const rawExpand: unknown = q.expand ?? [];
  let expand: string[] = [];
  if (!isStringArray(rawExpand)) {
    problems.push({
      field: 'expand',
      message: 'expand must be a list of names',
      solution: 'Send expand as a list of strings',
    });
  } else {
    expand = [...new Set(rawExpand)];
    problems.push(...checkExpand(decl, expand));
  }

  const rawFilters: unknown = q.filters ?? [];
  const filters: Filter[] = [];
  if (!Array.isArray(rawFilters)) {
    problems.push({
      field: 'filters',
      message: 'filters must be a list',
      solution: 'Send filters as [{field, op, values}]',
    });
  } else {
    for (const f of rawFilters as unknown[]) {
      const shaped =
        typeof f === 'object' &&
        f !== null &&
        typeof (f as Filter).field === 'string' &&
        FILTER_OPS.includes((f as Filter).op) &&
        isStringArray((f as Filter).values);
      if (!shaped) {
        problems.push({
          field: 'filters',
          message: 'each filter must be {field, op, values: string[]} with a known op',
          solution: `Use one of the operators ${FILTER_OPS.join(', ')}`,
          filter: true,
        });
        continue;
      }
      const filter: Filter = { field: (f as Filter).field, op: (f as Filter).op, values: [...(f as Filter).values] };
      problems.push(...checkFilter(decl, filter));
      filters.push(filter);
    }
  }

  throwIfProblems(decl, problems);
  const query: ListQuery = { page: win.page, limit: win.limit, skip: win.skip, sort, filters, expand };
  if (search !== undefined) query.search = search;
  return query;
}
