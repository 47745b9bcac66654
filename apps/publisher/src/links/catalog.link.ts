import { products as pb } from '@pim/contracts';
import { NotFoundError } from '@pim/errors';
import { checkProductFilters } from '@pim/records';
import { productFiltersQuery, type ProductFilters } from '@pim/resources';
import { createRpcClient, toProtoListQuery } from '@pim/rpc';
import type { ProductSnapshot } from '../products/product.payload';

/** The outcome of a publication as the catalog records it on the product. */
export type PublishmentOutcome = pb.PublishmentOutcome;

/**
 * What the publisher asks the catalog: a product as the API shows it, which products the caller
 * sees, and to record publication outcomes on products.
 */
export interface CatalogLink {
  /** The live product as GET /products/{id} shows it, or null when there is none. A catalog that does not answer is a 503. */
  product(id: string): Promise<ProductSnapshot | null>;
  /** The ids among these that name live products the caller sees (docs/decisions/access.md). */
  visibleProducts(ids: string[]): Promise<string[]>;
  /**
   * The live products matching product list filters, in `_id` order after `after` (a keyset page),
   * as the API shows them, with how many match in all. Bad filters are a ValidationError.
   */
  productsPage(
    filters: ProductFilters,
    after: string | null,
    limit: number,
  ): Promise<{ products: ProductSnapshot[]; total: number }>;
  /**
   * Refuses, as the caller, product list filters they could not run (a bad field, operator or
   * value; an attribute unknown or hidden from them), named under `filters.`; reads no product.
   */
  checkFilters(filters: ProductFilters): Promise<void>;
  /** Records outcomes on their products (merged by channel); answers the products that are gone. */
  recordPublishments(outcomes: PublishmentOutcome[]): Promise<string[]>;
  close(): void;
}

const DEADLINE_MS = 10_000;
/** Product ids per FilterVisibleProducts call (the catalog takes up to 10,000). */
const VISIBLE_BATCH = 10_000;

/** The catalog's products service at `address` (`host:port`), connected on first use. */
export function catalogLink(address: string): CatalogLink {
  let client: ReturnType<typeof createRpcClient<pb.ProductsServiceClient>> | undefined;
  const products = () =>
    (client ??= createRpcClient(pb.ProductsServiceClient, { service: 'catalog', address, deadlineMs: DEADLINE_MS }));
  return {
    async product(id) {
      try {
        const r = await products().getProductJson({ id });
        return JSON.parse(Buffer.from(r.json).toString('utf8')) as ProductSnapshot;
      } catch (err) {
        if (err instanceof NotFoundError) return null;
        throw err;
      }
    },
    async visibleProducts(ids) {
      const seen: string[] = [];
      for (let i = 0; i < ids.length; i += VISIBLE_BATCH)
        seen.push(...(await products().filterVisibleProducts({ ids: ids.slice(i, i + VISIBLE_BATCH) })).ids);
      return seen;
    },
    async productsPage(filters, after, limit) {
      const query = productFiltersQuery(filters, { sort: '_id', limit: String(limit) });
      // The keyset cursor goes beside the caller's filters (an `_id_gt` of theirs still holds).
      if (after) query.filters.push({ field: '_id', op: 'gt', values: [after] });
      const r = await products().listProductsJson({ query: toProtoListQuery(query) });
      return {
        products: JSON.parse(Buffer.from(r.data_json).toString('utf8')) as ProductSnapshot[],
        total: r.page_info?.total ?? 0,
      };
    },
    checkFilters: (filters) => checkProductFilters(products(), filters, 'product filters'),
    async recordPublishments(outcomes) {
      if (outcomes.length === 0) return [];
      return (await products().recordPublishments({ outcomes })).missing_product_ids;
    },
    close: () => client?.close(),
  };
}
