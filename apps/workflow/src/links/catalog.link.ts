import { products as pb } from '@pim/contracts';
import { ValidationError } from '@pim/errors';
import { currentContext, runWithContext } from '@pim/logging';
import { checkProductFilters, type ProductsQueryChecker } from '@pim/records';
import { productFiltersQuery, type ProductFilters } from '@pim/resources';
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
  /** The catalog's check of product list filters, as the caller (a 403 for an attribute hidden from them). */
  checkProductsQuery(request: pb.CheckProductsQueryRequest): Promise<pb.CheckProductsQueryResponse>;
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

/** Filters without attributes are the product list's own: nothing to ask the catalog. */
const NOTHING_TO_ASK: ProductsQueryChecker = { checkProductsQuery: async () => ({}) };

/**
 * Refuses workflow approval filters the product list does not take (an unknown field, a bad
 * operator or value), naming each under `filters.`; attribute filters are checked by the catalog,
 * as the writer: an unknown key or a bad value is a 400, an attribute hidden from the writer a 403.
 * Only filters naming attributes need the catalog.
 */
export async function checkApprovalFilters(catalog: ProductsQueryChecker, filters: ProductFilters): Promise<void> {
  await checkProductFilters(
    Object.keys(filters).some((param) => param.startsWith('attributes.')) ? catalog : NOTHING_TO_ASK,
    filters,
    'workflow approval filters',
  );
}

/** Runs fn in the current request's context without the caller's product access (unrestricted). */
function asPlatform<T>(fn: () => T): T {
  const ctx = currentContext();
  if (!ctx?.actor?.access) return fn();
  const { access: _access, ...actor } = ctx.actor;
  return runWithContext({ ...ctx, actor }, fn);
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
      const list = { query: toProtoListQuery(query) };
      // Which workflow approval governs a product is the platform's rule, matched whoever proposes
      // (the caller's sight of the product was checked first): filters on an attribute hidden from
      // the proposer still count, and the proposer learns only which approval governs.
      const { page_info } = await asPlatform(() => products().listProducts(list));
      return (page_info?.total ?? 0) > 0;
    },
    checkProductsQuery: (request) => products().checkProductsQuery(request),
    applyChanges: (request) => products().applyProductChanges(request),
    close: () => client?.close(),
  };
}
