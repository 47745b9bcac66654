import type { MaybeOptionalInit } from 'openapi-fetch';
import type { PimClient } from './client';
import type { components, paths } from './schema';

/** The largest page the API serves (`limit` at most 100). */
export const MAX_PAGE_LIMIT = 100;

/** What every list answers: `{ data, total, page, limit, pages, ... }` (the `*List` schemas). */
export interface ListEnvelope<Item = unknown> {
  data: Item[];
  /** Pages in the whole list at this page's `limit`. */
  pages: number;
}

type GetPath = { [P in keyof paths]: paths[P] extends { get: object } ? P : never }[keyof paths];
type OkBody<P extends GetPath> = paths[P]['get'] extends {
  responses: { 200: { content: { 'application/json': infer Body } } };
}
  ? Body
  : never;

/** The paths whose GET answers a list envelope, e.g. `'/api/v1/products'`. */
export type ListPath = { [P in GetPath]: OkBody<P> extends ListEnvelope ? P : never }[GetPath];
/** One page of the list at `P`, e.g. `ListPage<'/api/v1/products'>` is the `ProductList` schema. */
export type ListPage<P extends ListPath> = Extract<OkBody<P>, ListEnvelope>;
/** A record of the list at `P`, e.g. `ListItem<'/api/v1/products'>` is `ProductListItem`. */
export type ListItem<P extends ListPath> = ListPage<P> extends ListEnvelope<infer Item> ? Item : never;
/** The options of a GET of `P` (`params.path`, `params.query`, headers…): required when `P` has path parameters. */
export type ListInit<P extends ListPath> = MaybeOptionalInit<paths[P], 'get'>;
type ListArgs<P extends ListPath> = undefined extends ListInit<P> ? [init?: ListInit<P>] : [init: ListInit<P>];

/** A refused request: its status and the error object the API answered with. */
export class PimApiError extends Error {
  constructor(
    readonly method: string,
    readonly url: string,
    readonly status: number,
    readonly body: components['schemas']['Error'] | undefined,
  ) {
    super(`${method} ${url} answered ${status}: ${body?.message ?? body?.title ?? 'no error object'}`);
    this.name = 'PimApiError';
  }
}

/**
 * Each page of a list, from `first` on, as `fetchPage(page)` answers it: up to the last of its
 * `pages`, or an empty page (records deleted meanwhile), which is yielded and ends it. The loop
 * under `listPages`, for callers with their own transport.
 */
export async function* eachPage<Page extends ListEnvelope>(
  fetchPage: (page: number) => Promise<Page>,
  first = 1,
): AsyncGenerator<Page, void, undefined> {
  for (let page = first; ; page++) {
    const answer = await fetchPage(page);
    yield answer;
    if (answer.data.length === 0 || page >= answer.pages) return;
  }
}

/**
 * Each page of a list, through the typed client (so with its retries): the query given (filters,
 * `sort`) on every page, `limit` 100 unless given, from `page` 1 unless given. Throws a
 * PimApiError when a page is refused. Pages are offsets: records created or deleted while it
 * runs can shift others across pages; sort on a field that does not change (`_id`) for a stable walk.
 *
 * `for await (const page of listPages(client, '/api/v1/products', { params: { query: { sort: '_id' } } }))`
 */
export async function* listPages<P extends ListPath>(
  client: PimClient,
  path: P,
  ...[init]: ListArgs<P>
): AsyncGenerator<ListPage<P>, void, undefined> {
  const options = (init ?? {}) as { params?: { query?: Record<string, unknown> } };
  const query = options.params?.query ?? {};
  const limit = query.limit ?? MAX_PAGE_LIMIT;
  // The path is one of the list paths, but TypeScript cannot follow a generic path through GET's overloads.
  const get = client.GET as unknown as (path: string, init: object) => ReturnType<PimClient['GET']>;
  yield* eachPage(
    async (page) => {
      const { data, error, response } = await get(path, {
        ...options,
        params: { ...options.params, query: { ...query, page, limit } },
      });
      if (data === undefined) throw new PimApiError('GET', response.url, response.status, error as never);
      return data as ListPage<P>;
    },
    Number(query.page ?? 1),
  );
}

/**
 * Each record of a list, page after page (see listPages):
 * `for await (const product of listAll(client, '/api/v1/products', { params: { query: { filter: { brand_id } } } }))`.
 */
export async function* listAll<P extends ListPath>(
  client: PimClient,
  path: P,
  ...init: ListArgs<P>
): AsyncGenerator<ListItem<P>, void, undefined> {
  for await (const page of listPages(client, path, ...init)) yield* page.data as ListItem<P>[];
}
