import type { components } from './schema';

export { createPimClient, type PimClient, type PimClientOptions } from './client';
export {
  retryingFetch,
  waitAsked,
  TRANSIENT_STATUSES,
  type Fetch,
  type RetryEvent,
  type RetryingFetch,
  type RetryOptions,
} from './retry';
export {
  eachPage,
  listAll,
  listPages,
  MAX_PAGE_LIMIT,
  PimApiError,
  type ListEnvelope,
  type ListInit,
  type ListItem,
  type ListPage,
  type ListPath,
} from './list';

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
