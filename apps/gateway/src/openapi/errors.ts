import { z } from 'zod';

/** The interface's error object (decisions.md §4) as a schema. */
export const errorObjectSchema = z
  .strictObject({
    code: z.number().int().meta({ example: 400 }),
    kind: z.enum(['validation', 'authentication', 'authorization', 'not_found', 'conflict', 'precondition', 'payload_too_large', 'unsupported_media_type', 'rate_limit', 'internal', 'unavailable']),
    name: z.string().max(64).meta({ example: 'ValidationError' }),
    title: z.string().max(200).meta({ example: 'Invalid webhook' }),
    message: z.string().max(4000).meta({ example: 'url must be an absolute http:// or https:// URL' }),
    solution: z.string().max(1000).meta({ example: 'Correct the fields named in details and send the request again' }),
    details: z
      .array(z.strictObject({ field: z.string().max(200), message: z.string().max(1000) }))
      .max(1000)
      .optional(),
    request_id: z.string().max(128).optional(),
  })
  .meta({ id: 'Error', description: 'Every error, at every status, has this shape' });

/** Standard descriptions of error statuses. */
export const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request (body, query, filter or id)',
  401: 'Missing, unknown, revoked or expired API key',
  403: 'The API key lacks the scope this route needs',
  404: 'No such record or route',
  409: 'Conflict with the current state (e.g. a unique value taken)',
  412: 'If-Match does not match the current version',
  413: 'Body larger than the limit',
  415: 'Body is not JSON',
  429: 'Rate limit exceeded; retry after Retry-After seconds',
  500: 'Unexpected error (reported with its request_id)',
  503: 'A dependency is unavailable; retry after Retry-After seconds',
};
