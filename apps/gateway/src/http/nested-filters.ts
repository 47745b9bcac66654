import { ValidationError } from '@pim/errors';
import { writtenFilter, type Filter } from '@pim/query';

/**
 * Splits a list's raw query into the parameters the shared parser checks and the nested filters
 * under `prefix` (`attributes.color_in=red,blue`) that only the owner can check (it knows each
 * attribute's type and its keys): each passed on as written, for the owner to read its operator
 * (`_in`, `_gte`, `_eq`…) once it knows whether the suffix is part of a key.
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
    nested.push(writtenFilter(param, value));
  }
  return { rest, nested };
}
