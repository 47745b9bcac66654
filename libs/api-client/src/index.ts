import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema';

/** The generated types of the document: paths, operations and component schemas. */
export type { components, operations, paths } from './schema';

/** A schema of the API by its name in the OpenAPI document, e.g. `Schema<'Webhook'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];
/** A webhook as the API shows it. */
export type Webhook = Schema<'Webhook'>;
/** The writable fields of a webhook. */
export type WebhookInput = Schema<'WebhookInput'>;
/** An API key as the API shows it (never its secret). */
export type ApiKey = Schema<'ApiKey'>;
/** The error object every error response carries. */
export type ErrorObject = Schema<'Error'>;

/** Where the API is and who calls it. */
export interface PimClientOptions {
  /** The gateway's origin, e.g. `https://pim.example.com` (the paths carry `/api/v1`). */
  baseUrl: string;
  /** An API key (`pim_<prefix>_<secret>`), sent on every request as `Authorization: Bearer …`. */
  apiKey?: string;
  /** A fetch to use instead of the global one (tests, proxies, retries). */
  fetch?: (input: Request) => Promise<Response>;
}

/** A typed client of the API: `client.GET('/api/v1/webhooks/{id}', { params: { path: { id } } })`. */
export type PimClient = Client<paths>;

/**
 * A client of the PIM API whose paths, parameters, bodies and responses are typed from the
 * gateway's OpenAPI document. A call resolves to `{ data, error, response }`: `data` on 2xx,
 * `error` (the error object) otherwise; `response` gives status and headers (ETag, RateLimit-*).
 */
export function createPimClient({ baseUrl, apiKey, fetch }: PimClientOptions): PimClient {
  return createClient<paths>({
    baseUrl: baseUrl.replace(/\/+$/, ''),
    headers: apiKey ? { Authorization: `Bearer ${apiKey}` } : undefined,
    ...(fetch ? { fetch } : {}),
  });
}
