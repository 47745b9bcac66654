import { z } from 'zod';
import { parseListQuery, writtenFilter, type Filter, type ListQuery } from '@pim/query';
import { Product } from './products';

/** Product list filters as a record keeps them: each a value or a list of values, as GET /products takes them. */
export const productFiltersSchema = (description: string) =>
  z
    .record(z.string().max(200), z.union([z.string().max(10_000), z.array(z.string().max(1_000)).max(1_000)]))
    .meta({ description, example: { brand_id: '6740a1b2c3d4e5f601234567' } });

/** Product list filters: parameter → value(s). */
export type ProductFilters = Record<string, string | string[]>;

const NESTED_PREFIX = 'attributes.';

/**
 * The product list query of stored filters, with `extra` parameters (`_id`, `limit`, `sort`): the
 * filters as GET /products takes them, `attributes.<key>` ones passed on as written for the catalog
 * to read and check (it knows each attribute's key and type). An unknown field, a bad operator or value is a ValidationError.
 */
export function productFiltersQuery(filters: ProductFilters, extra: Record<string, string> = {}): ListQuery {
  const plain: Record<string, string | string[]> = {};
  const nested: Filter[] = [];
  for (const [param, value] of Object.entries(filters)) {
    if (param.startsWith(NESTED_PREFIX)) nested.push(writtenFilter(param, value));
    else plain[param] = value;
  }
  const query = parseListQuery(Product.listDecl, { ...plain, ...extra });
  return { ...query, filters: [...query.filters, ...nested] };
}
