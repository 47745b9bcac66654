import { z } from 'zod';
import type { ResponseConfig } from '@asteasolutions/zod-to-openapi';
import {
  AuthenticationError,
  AuthorizationError,
  ConflictError,
  ERROR_OBJECT_LIMITS,
  InternalError,
  NotFoundError,
  GoneError,
  PayloadTooLargeError,
  PreconditionFailedError,
  RateLimitError,
  UnavailableError,
  UnsupportedMediaTypeError,
  ValidationError,
  type PimError,
} from '@pim/errors';
import {
  COUNTED_HEADERS,
  SHARED_HEADERS,
  UNCOUNTED_HEADERS,
  headerObject,
  headerRef,
  responseHeaders,
  type HeadersObject,
  type SharedHeader,
} from './headers';

/** A response as zod-to-openapi takes it. */
export type ResponseObject = ResponseConfig;

/** The interface's error object (docs/platform/rules.md: errors) as a schema. */
export const errorObjectSchema = z
  .strictObject({
    code: z.number().int().min(400).max(599).meta({ format: 'int32', description: 'The HTTP status', example: 400 }),
    kind: z.enum([
      'validation',
      'authentication',
      'authorization',
      'not_found',
      'method_not_allowed',
      'conflict',
      'precondition',
      'gone',
      'payload_too_large',
      'headers_too_large',
      'request_timeout',
      'unsupported_media_type',
      'rate_limit',
      'internal',
      'unavailable',
    ]),
    name: z
      .string()
      .regex(/^[A-Za-z]+Error$/)
      .max(64)
      .meta({ example: 'ValidationError' }),
    title: z.string().max(ERROR_OBJECT_LIMITS.title).meta({ example: 'Invalid webhook' }),
    message: z
      .string()
      .max(ERROR_OBJECT_LIMITS.message)
      .meta({ example: 'url must be an absolute http:// or https:// URL' }),
    solution: z
      .string()
      .max(ERROR_OBJECT_LIMITS.solution)
      .meta({ example: 'Correct the fields named in details and send the request again' }),
    details: z
      .array(
        z.strictObject({
          field: z.string().max(ERROR_OBJECT_LIMITS.detailField).meta({ example: 'url' }),
          message: z
            .string()
            .max(ERROR_OBJECT_LIMITS.detailMessage)
            .meta({ example: 'must be an absolute http:// or https:// URL' }),
        }),
      )
      .max(ERROR_OBJECT_LIMITS.details)
      .optional(),
    request_id: z
      .string()
      .regex(/^[A-Za-z0-9._:-]{1,128}$/)
      .max(128)
      .optional()
      .meta({ description: 'The X-Request-Id of the response', example: '0b5f3a4e-8c1d-4f7a-9e2b-6d3c1a2b4c5d' }),
  })
  .meta({ id: 'Error', description: 'Every error, at every status, has this shape' });

/** Standard descriptions of error statuses. */
export const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request (body, query, filter or id)',
  401: 'Missing, unknown, revoked or expired API key',
  403: 'The API key lacks the scope this route needs',
  404: 'No such record or route',
  409: 'Conflict with the current state (e.g. a unique value taken)',
  410: 'What was asked for is no longer kept (an export file past its retention period)',
  412: 'If-Match does not match the current version',
  413: 'Body larger than the limit',
  415: 'Body is not JSON',
  429: 'Rate limit exceeded; retry after Retry-After seconds',
  500: 'Unexpected error (reported with its request_id)',
  503: 'A dependency is unavailable; retry after Retry-After seconds',
};

// One typical error per status, made by the same classes the gateway throws, so each example has
// exactly the shape and wording a caller receives.
const EXAMPLE_ERRORS: Record<number, PimError> = {
  400: new ValidationError('url must be an absolute http:// or https:// URL', {
    details: [{ field: 'url', message: 'must be an absolute http:// or https:// URL' }],
  }),
  401: new AuthenticationError('This route needs an API key'),
  403: new AuthorizationError("This API key lacks the scope 'webhooks:write'", {
    solution: "Use a key that carries 'webhooks:write' or 'admin'; an admin can grant it at /api/v1/api-keys",
  }),
  404: new NotFoundError("No webhook with _id '6740a1b2c3d4e5f601234567'", {
    title: 'Webhook not found',
    solution: 'List webhooks with GET /api/v1/webhooks to find the right _id',
  }),
  409: new ConflictError('This collection already has a webhook', {
    details: [{ field: 'collection', message: 'This collection already has a webhook' }],
  }),
  412: new PreconditionFailedError('The webhook is at version 4, not 3', {
    details: [{ field: 'If-Match', message: 'current version is 4' }],
  }),
  410: new GoneError(
    "Export '6740a1b2c3d4e5f601234567' expired on 2026-11-20T10:00:00.000Z: its file is no longer kept",
    {
      title: 'Export expired',
      solution: 'Create the export again (POST /api/v1/exports with the same filters and headers)',
    },
  ),
  413: new PayloadTooLargeError('The request body is larger than the limit of 1048576 bytes', {
    solution: 'Send at most 1048576 bytes in one request',
  }),
  415: new UnsupportedMediaTypeError("Content-Type 'text/plain' is not supported", {
    solution: 'Send the body as JSON with "Content-Type: application/json"',
  }),
  429: new RateLimitError('More than 600 requests a minute', {
    solution: 'Wait 42 s (Retry-After), then retry; spread requests to stay under 600 a minute',
  }),
  500: new InternalError('An unexpected error occurred'),
  503: new UnavailableError('webhooks is unavailable'),
};

/** An example error object for a status (with a request id, as every response carries one). */
export function errorExample(status: number): z.infer<typeof errorObjectSchema> | undefined {
  return EXAMPLE_ERRORS[status]?.toObject('0b5f3a4e-8c1d-4f7a-9e2b-6d3c1a2b4c5d') as
    z.infer<typeof errorObjectSchema> | undefined;
}

/** Component names of the error responses, by status. */
const RESPONSE_NAMES: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  412: 'PreconditionFailed',
  410: 'Gone',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  429: 'TooManyRequests',
  500: 'InternalServerError',
  503: 'ServiceUnavailable',
};

/** The component name of an error response. */
export function errorResponseName(status: number): string {
  return RESPONSE_NAMES[status] ?? `Error${status}`;
}

/** The shared headers an error response carries (429 and 503 always say when to retry). */
export function errorResponseHeaders(status: number): SharedHeader[] {
  const headers = [...(status >= 500 ? UNCOUNTED_HEADERS : COUNTED_HEADERS)];
  if (status === 429 || status === 503) headers.push('Retry-After');
  return headers;
}

/** The error response of a status as an OpenAPI response object (its headers refer to header components). */
export function errorResponse(status: number): ResponseObject {
  const headers: HeadersObject = Object.fromEntries(errorResponseHeaders(status).map((h) => [h, headerRef(h)]));
  if (status === 409) {
    headers['Retry-After'] = headerObject(
      SHARED_HEADERS['Retry-After'].schema,
      'Sent only when a request with the same Idempotency-Key is still being processed: retry after this many seconds to receive its response',
      false,
    );
  }
  const text = ERROR_DESCRIPTIONS[status] ?? 'Error';
  const description =
    status >= 500 ? `${text}. RateLimit-* headers are present when the request was counted before it failed.` : text;
  const example = errorExample(status);
  return {
    description,
    headers: responseHeaders(headers),
    content: {
      'application/json': { schema: { $ref: '#/components/schemas/Error' }, ...(example ? { example } : {}) },
    },
  };
}
