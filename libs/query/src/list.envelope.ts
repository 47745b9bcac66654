import { typedValue } from './field.values';
import { filterKey, type ListQuery } from './list-query.types';
import type { ResourceDecl } from './resource.declaration';

/** The keys of the list envelope, in the order every list answers them. */
export const LIST_ENVELOPE_KEYS = [
  'page',
  'skip',
  'limit',
  'sort',
  'pages',
  'total',
  'next',
  'previous',
  'nextUrl',
  'previousUrl',
  'filters',
  'data',
] as const;

/** The list envelope of the interface: exactly these 12 keys, in this order. */
export interface ListEnvelope<T> {
  page: number;
  skip: number;
  limit: number;
  sort: Record<string, 'asc' | 'desc'>;
  pages: number;
  total: number;
  next: boolean;
  previous: boolean;
  nextUrl: string;
  previousUrl: string | false;
  filters: Record<string, unknown>;
  data: T[];
}

/** What buildEnvelope needs. */
export interface EnvelopeArgs<T> {
  query: ListQuery;
  total: number;
  data: T[];
  /**
   * The list's URL without a query string, e.g. `https://pim.example.com/api/v1/webhooks`: the page
   * URLs (`nextUrl`, `previousUrl`) are built on it, absolute when it is.
   */
  path: string;
  /** The request's query parameters as received; every one but page and skip is kept in the page URLs. */
  raw: Record<string, unknown>;
  /**
   * The declaration, to type filter values exactly (`version: 3`). Without it only `true`/`false`
   * become booleans and everything else stays a string.
   */
  decl?: ResourceDecl;
}

// Commas stay readable (`sort=-created_at,code`); they mean the same in a query string.
function encode(v: string): string {
  return encodeURIComponent(v).replace(/%2C/gi, ',');
}

/** The URL of another page of the same list: every parameter kept, `skip` dropped, `page` set. */
export function pageUrl(path: string, raw: Record<string, unknown>, page: number): string {
  const base = path.split('?')[0];
  const parts: string[] = [];
  let placed = false;
  for (const [key, value] of Object.entries(raw ?? {})) {
    if (key === 'skip' || value === undefined || value === null) continue;
    if (key === 'page') {
      if (!placed) parts.push(`page=${page}`);
      placed = true;
      continue;
    }
    for (const v of Array.isArray(value) ? value : [value]) {
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
        parts.push(`${encode(key)}=${encode(String(v))}`);
    }
  }
  if (!placed) parts.push(`page=${page}`);
  return `${base}?${parts.join('&')}`;
}

/** Builds the list envelope from a query, the total count and one page of data. */
export function buildEnvelope<T>(args: EnvelopeArgs<T>): ListEnvelope<T> {
  const { query, total, data, path, raw, decl } = args;
  const pages = total > 0 ? Math.ceil(total / query.limit) : 0;
  const next = query.page < pages;
  const previous = query.page > 1;

  const sort: Record<string, 'asc' | 'desc'> = {};
  for (const s of query.sort) sort[s.field] = s.direction;

  const filters: Record<string, unknown> = {};
  for (const f of query.filters) {
    const type = f.op === 'exists' ? 'boolean' : decl?.fields[f.field]?.type;
    const values = f.values.map((v) => typedValue(type, v));
    filters[filterKey(f)] = f.op === 'in' || f.op === 'nin' ? values : values[0];
  }
  // The search is a filter of the page too: said back like the others.
  if (query.search !== undefined) filters._search = query.search;

  return {
    page: query.page,
    skip: query.skip,
    limit: query.limit,
    sort,
    pages,
    total,
    next,
    previous,
    nextUrl: next ? pageUrl(path, raw, query.page + 1) : '',
    previousUrl: previous ? pageUrl(path, raw, query.page - 1) : false,
    filters,
    data,
  };
}
