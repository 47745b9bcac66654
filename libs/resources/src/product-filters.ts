import { z } from 'zod';
import { parseListQuery, type Filter, type FilterOp, type ListQuery } from '@pim/query';
import { Product } from './products';

/** Product list filters as a record keeps them: each a value or a list of values, as GET /products takes them. */
export const productFiltersSchema = (description: string) =>
  z
    .record(z.string().max(200), z.union([z.string().max(10_000), z.array(z.string().max(1_000)).max(1_000)]))
    .meta({ description, example: { brand_id: '6740a1b2c3d4e5f601234567' } });

/** Product list filters: parameter → value(s). */
export type ProductFilters = Record<string, string | string[]>;

const NESTED_PREFIX = 'attributes.';
const SUFFIXES: readonly FilterOp[] = ['in', 'nin', 'ne', 'gt', 'gte', 'lt', 'lte', 'exists'];

/** A nested filter (`attributes.color_in`) as the catalog takes it: operator from the suffix, `in` values comma-separated. */
function nestedFilter(param: string, value: string | string[]): Filter {
  const cut = param.lastIndexOf('_');
  const suffix = cut > NESTED_PREFIX.length ? (param.slice(cut + 1) as FilterOp) : undefined;
  const op: FilterOp = suffix !== undefined && SUFFIXES.includes(suffix) ? suffix : 'eq';
  const values = Array.isArray(value) ? value : op === 'in' || op === 'nin' ? value.split(',') : [value];
  return { field: op === 'eq' ? param : param.slice(0, cut), op, values };
}

/**
 * The product list query of stored filters, with `extra` parameters (`_id`, `limit`, `sort`): the
 * filters as GET /products takes them, `attributes.<key>` ones passed on for the catalog to check
 * (it knows each attribute's type). An unknown field, a bad operator or value is a ValidationError.
 */
export function productFiltersQuery(filters: ProductFilters, extra: Record<string, string> = {}): ListQuery {
  const plain: Record<string, string | string[]> = {};
  const nested: Filter[] = [];
  for (const [param, value] of Object.entries(filters)) {
    if (param.startsWith(NESTED_PREFIX)) nested.push(nestedFilter(param, value));
    else plain[param] = value;
  }
  const query = parseListQuery(Product.listDecl, { ...plain, ...extra });
  return { ...query, filters: [...query.filters, ...nested] };
}
