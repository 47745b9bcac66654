import { ValidationError } from '@pim/errors';
import { filterableFields, type ResourceDecl } from './resource.declaration';

/** One thing wrong with a list query; all of them are reported together. */
export interface QueryProblem {
  /** The query parameter at fault (`limit`, `sort`, `collection_in`). */
  field: string;
  message: string;
  solution: string;
  /** A filter problem: the error message then names the allowed filters. */
  filter?: boolean;
}

/** How filters are written, for solutions. */
export const FILTER_SYNTAX =
  'Filter as <field>=v (or <field>_eq=v), <field>_in=a,b, <field>_nin=a,b, <field>_ne=v, <field>_gt|_gte|_lt|_lte=v (numbers, dates, ids) or <field>_exists=true|false';

/** Throws one ValidationError listing every problem, or returns when there is none. */
export function throwIfProblems(decl: ResourceDecl, problems: QueryProblem[]): void {
  if (problems.length === 0) return;
  let message = problems.map((p) => p.message).join('; ');
  if (problems.some((p) => p.filter)) {
    const allowed = filterableFields(decl);
    message +=
      allowed.length > 0
        ? `. Allowed filters: ${allowed.join(', ')}`
        : `. '${decl.collection}' has no filterable fields`;
  }
  const solution = [...new Set(problems.map((p) => p.solution))].join('; ');
  throw new ValidationError(message, {
    title: 'Invalid list query',
    solution,
    details: problems.map((p) => ({ field: p.field, message: p.message })),
  });
}
