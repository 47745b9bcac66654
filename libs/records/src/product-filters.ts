import type { products as pb } from '@pim/contracts';
import { PimError, ValidationError, underField } from '@pim/errors';
import { productFiltersQuery, type ProductFilters } from '@pim/resources';
import { toProtoListQuery } from '@pim/rpc';

/** The catalog's one call this check makes. */
export interface ProductsQueryChecker {
  checkProductsQuery(request: pb.CheckProductsQueryRequest): Promise<pb.CheckProductsQueryResponse>;
}

/**
 * Refuses, as the caller, product list filters a record keeps to run later (a workflow approval's,
 * a publication batch's): a field, operator or value GET /products does not take (checked here), an
 * attribute filter the catalog refuses — an unknown key, a value of the wrong type, an attribute
 * hidden from the caller (403). Each refusal names its filters under `filters.`. Reads no product;
 * `what` names the filters in the message (`workflow approval filters`).
 */
export async function checkProductFilters(
  catalog: ProductsQueryChecker,
  filters: ProductFilters,
  what: string,
): Promise<void> {
  let query;
  try {
    query = productFiltersQuery(filters);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    throw new ValidationError(`Invalid ${what}: ${err.message}`, {
      title: 'Invalid filters',
      solution:
        'Use the filters GET /products takes: a field of the product list, with an operator suffix where needed',
      details: (err.details ?? []).map((d) => ({ field: `filters.${d.field}`, message: d.message })),
    });
  }
  try {
    await catalog.checkProductsQuery({ query: toProtoListQuery(query), attribute_keys: [] });
  } catch (err) {
    if (err instanceof PimError && (err.kind === 'validation' || err.kind === 'authorization'))
      throw underField(err, 'filters');
    throw err;
  }
}
