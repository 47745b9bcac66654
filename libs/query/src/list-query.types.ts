/** Filter operators; `eq` is the bare `<field>=v`, the others are `<field>_<op>=v`. */
export type FilterOp = 'eq' | 'in' | 'nin' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'exists';

/** Every filter operator, for checks at run time. */
export const FILTER_OPS: readonly FilterOp[] = ['eq', 'in', 'nin', 'ne', 'gt', 'gte', 'lt', 'lte', 'exists'];

/** One filter. Values stay strings (they cross gRPC that way) and are typed when the SQL is built. */
export interface Filter {
  field: string;
  op: FilterOp;
  values: string[];
}

/** One sort key. */
export interface SortField {
  field: string;
  direction: 'asc' | 'desc';
}

/** A parsed, transport-neutral list query: the gateway parses it, the owning app runs it. */
export interface ListQuery {
  page: number;
  limit: number;
  skip: number;
  sort: SortField[];
  search?: string;
  filters: Filter[];
  expand: string[];
}

/** Page-size limits a caller may override. */
export interface ListLimits {
  /** Largest `limit` accepted (default 100). */
  maxLimit?: number;
  /** `limit` when the query gives none (default 25). */
  defaultLimit?: number;
}

/** Page size when the query names none (docs/platform/rules.md: lists). */
export const DEFAULT_LIMIT = 25;

/** Largest page size by default (docs/platform/rules.md: lists, limits). */
export const MAX_LIMIT = 100;

/**
 * The deepest a list window may start: `skip`, or `(page - 1) * limit`, is at most 2^31 - 1.
 * Every List RPC carries the window as int32, and an offset that deep is a scan of billions of
 * rows anyway; deeper reads page by `_id` (`sort=_id&_id_gt=<last _id>`), which stays fast.
 */
export const MAX_SKIP = 2_147_483_647;

/** The query parameter a filter comes from: `enabled`, `collection_in`, `_id_in`. */
export function filterKey(filter: Pick<Filter, 'field' | 'op'>): string {
  return filter.op === 'eq' ? filter.field : `${filter.field}_${filter.op}`;
}
