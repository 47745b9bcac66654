import type { Filter, FilterOp } from './list-query.types';
import { splitListValues } from './list-values';

/** The operators a filter parameter may end with: `_eq` (equality, as the bare form), `_in`, `_gte`… */
const SUFFIXES: readonly FilterOp[] = ['eq', 'in', 'nin', 'ne', 'gt', 'gte', 'lt', 'lte', 'exists'];

/**
 * A filter parameter under a prefix only its owner can read (`attributes.origin_in=BR`), passed on
 * as it was written: the whole parameter as the field, its value(s) as given, equality. Whether
 * `_in` is an operator or part of the key (an attribute named `origin_in`) only the owner knows,
 * which reads it with `readNestedFilter` once it knows the keys.
 */
export const writtenFilter = (param: string, value: string | readonly string[]): Filter => ({
  field: param,
  op: 'eq',
  values: typeof value === 'string' ? [value] : [...value],
});

/**
 * A nested filter read the way every filter is: a suffix after the last `_` of the field is the
 * operator (`_eq` says equality explicitly), and `_in`/`_nin` take comma-separated values (`\,` is
 * a comma inside one, as in every list: `splitListValues`). For a filter passed on as written
 * (`writtenFilter`) whose whole field is not a key the owner knows; a filter already read (any
 * operator but equality) is answered as it is.
 */
export function readNestedFilter(filter: Filter, prefix: string): Filter {
  if (filter.op !== 'eq') return filter;
  const cut = filter.field.lastIndexOf('_');
  const suffix = cut > prefix.length ? (filter.field.slice(cut + 1) as FilterOp) : undefined;
  if (suffix === undefined || !SUFFIXES.includes(suffix)) return filter;
  const values = suffix === 'in' || suffix === 'nin' ? filter.values.flatMap(splitListValues) : filter.values;
  return { field: filter.field.slice(0, cut), op: suffix, values };
}
