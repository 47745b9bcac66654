import createClient, { type Client } from 'openapi-fetch';
import { retryingFetch, type Fetch, type RetryOptions } from './retry';
import type { paths } from './schema';

/** Where the API is, who calls it, and how transient failures are retried. */
export interface PimClientOptions {
  /** The gateway's origin, e.g. `https://pim.example.com` (the paths carry `/api/v1`). */
  baseUrl: string;
  /** An API key (`pim_<prefix>_<secret>`), sent on every request as `Authorization: Bearer …`. */
  apiKey?: string;
  /** A fetch to use instead of the global one (tests, proxies); the retries wrap it, so it sees every attempt. */
  fetch?: Fetch;
  /**
   * How transient failures (429, 500, 502, 503, 504, no answer) are retried: on by default (4
   * attempts in all, POSTs made safe with an Idempotency-Key, see `retryingFetch`); `false`
   * sends each request once.
   */
  retries?: RetryOptions | false;
}

/**
 * A typed client of the API: `client.GET('/api/v1/webhooks/{id}', { params: { path: { id } } })`;
 * a list's filters go in its `filter` object: `{ params: { query: { filter: { enabled: true }, sort: '-created_at' } } }`.
 */
export type PimClient = Client<paths>;

/**
 * A client of the PIM API whose paths, parameters, bodies and responses are typed from the
 * gateway's OpenAPI document. A call resolves to `{ data, error, response }`: `data` on 2xx,
 * `error` (the error object) otherwise; `response` gives status and headers (ETag, RateLimit-*).
 * Transient failures are retried first (`retries`); what comes back is the last answer.
 */
export function createPimClient({ baseUrl, apiKey, fetch, retries = {} }: PimClientOptions): PimClient {
  const send = retries === false ? fetch : retryingFetch(fetch, retries);
  return createClient<paths>({
    baseUrl: baseUrl.replace(/\/+$/, ''),
    // A list's `filter` object is sent as the query parameters it holds (`?enabled=true&code_in=a,b`),
    // as the document states it (style form, exploded), not as `filter[enabled]=true`.
    querySerializer: { object: { style: 'form', explode: true } },
    headers: apiKey ? { Authorization: `Bearer ${apiKey}` } : undefined,
    ...(send ? { fetch: send } : {}),
  });
}
