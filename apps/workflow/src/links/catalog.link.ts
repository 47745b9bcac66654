import { products as pb } from '@pim/contracts';
import { ValidationError } from '@pim/errors';
import { productFiltersQuery } from '@pim/resources';
import { createRpcClient, toProtoListQuery } from '@pim/rpc';

/**
 * What the workflow app asks the catalog: whether a product is live, which products the caller
 * sees, which filters a product matches, and to apply approved changes.
 */
export interface CatalogLink {
  /** Whether a live product has this id (one the caller sees). A catalog that does not answer is a 503. */
  productExists(id: string): Promise<boolean>;
  /** The ids among these that name live products the caller sees (docs/decisions/access.md). */
  visibleProducts(ids: string[]): Promise<string[]>;
  /** Whether the live product matches product list filters (`brand_id`, `attributes.<key>`…). */
  productMatches(id: string, filters: Record<string, string | string[]>): Promise<boolean>;
  /** Applies an approved change request (at most once per change id); a refusal is the catalog's error. */
  applyChanges(request: pb.ApplyProductChangesRequest): Promise<pb.ApplyProductChangesResponse>;
  close(): void;
}

const DEADLINE_MS = 5_000;
/** Product ids per FilterVisibleProducts call (the catalog takes up to 10,000). */
const VISIBLE_BATCH = 10_000;
/**
 * The product list query of a workflow approval's filters narrowed to one product: the filters as
 * `GET /products` takes them, plus `_id`. Filters the product list does not know are a 400 naming them.
 */
export function productFilterQuery(productId: string, filters: Record<string, string | string[]>) {
  return productFiltersQuery(filters, { _id: productId, limit: '1' });
}

/**
 * Refuses workflow approval filters the product list does not take (an unknown field, a bad
 * operator or value), naming each under `filters.`; attribute filters are checked by the catalog
 * when they are used (it knows each attribute's type).
 */
export function checkProductFilters(filters: Record<string, string | string[]>): void {
  try {
    productFilterQuery('000000000000000000000000', filters);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    throw new ValidationError(`Invalid workflow approval filters: ${err.message}`, {
      title: 'Invalid filters',
      solution:
        'Use the filters GET /products takes: a field of the product list, with an operator suffix where needed',
      details: (err.details ?? []).map((d) => ({ field: `filters.${d.field}`, message: d.message })),
    });
  }
}

/** The catalog's products service at `address` (`host:port`), connected on first use. */
export function catalogLink(address: string): CatalogLink {
  let client: ReturnType<typeof createRpcClient<pb.ProductsServiceClient>> | undefined;
  const products = () =>
    (client ??= createRpcClient(pb.ProductsServiceClient, { service: 'catalog', address, deadlineMs: DEADLINE_MS }));
  return {
    async productExists(id) {
      const { data } = await products().batchGetProducts({ ids: [id], codes: [] });
      return data.some((p: pb.Product) => p.id === id);
    },
    async visibleProducts(ids) {
      const seen: string[] = [];
      for (let i = 0; i < ids.length; i += VISIBLE_BATCH)
        seen.push(...(await products().filterVisibleProducts({ ids: ids.slice(i, i + VISIBLE_BATCH) })).ids);
      return seen;
    },
    async productMatches(id, filters) {
      let query;
      try {
        query = productFilterQuery(id, filters);
      } catch (err) {
        if (err instanceof ValidationError) return false;
        throw err;
      }
      const { page_info } = await products().listProducts({ query: toProtoListQuery(query) });
      return (page_info?.total ?? 0) > 0;
    },
    applyChanges: (request) => products().applyProductChanges(request),
    close: () => client?.close(),
  };
}
