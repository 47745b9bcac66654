import { ValidationError } from '@pim/errors';
import type { Filter, FilterOp } from '@pim/query';

const SUFFIXES: readonly FilterOp[] = ['in', 'nin', 'ne', 'gt', 'gte', 'lt', 'lte', 'exists'];

/**
 * Splits a list's raw query into the parameters the shared parser checks and the nested filters
 * under `prefix` (`attributes.color_in=red,blue`) that only the owner can check (it knows each
 * attribute's type). A suffix after the last `_` is the operator, as for every filter; `_in` and
 * `_nin` take comma-separated values.
 */
export function splitNestedFilters(
  raw: Record<string, unknown>,
  prefix: string | undefined,
): { rest: Record<string, unknown>; nested: Filter[] } {
  if (prefix === undefined) return { rest: raw, nested: [] };
  const rest: Record<string, unknown> = {};
  const nested: Filter[] = [];
  for (const [param, value] of Object.entries(raw)) {
    if (!param.startsWith(prefix)) {
      rest[param] = value;
      continue;
    }
    if (typeof value !== 'string' || value.length > 8_000) {
      throw new ValidationError(`${param} must be given once, as a plain value`, {
        title: 'Invalid filter',
        details: [{ field: param, message: 'must be given once, as a plain value' }],
      });
    }
    const cut = param.lastIndexOf('_');
    const suffix = cut > prefix.length ? (param.slice(cut + 1) as FilterOp) : undefined;
    const op: FilterOp = suffix !== undefined && SUFFIXES.includes(suffix) ? suffix : 'eq';
    const field = op === 'eq' ? param : param.slice(0, cut);
    nested.push({ field, op, values: op === 'in' || op === 'nin' ? value.split(',') : [value] });
  }
  return { rest, nested };
}
