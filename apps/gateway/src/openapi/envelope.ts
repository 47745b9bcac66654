import { z, type ZodType } from 'zod';
import { MAX_SKIP } from '@pim/query';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** A whole number as the envelope reports it (counts and positions are safe JSON integers). */
const count = (min: number, max: number, description: string, example: number) =>
  z
    .number()
    .int()
    .min(min)
    .max(max)
    .meta({ format: max > 2_147_483_647 ? 'int64' : 'int32', description, example });

/** A page URL: the list's path and query, relative to the server. */
const pageUrl = z.string().max(8192).meta({ format: 'uri-reference', example: '/api/v1/webhooks?limit=25&page=2' });

/** The list envelope of the interface around items of one schema; `maxLimit` bounds a page. */
export function envelopeSchema(id: string, item: ZodType, maxLimit: number) {
  return z
    .strictObject({
      // A window starts at most MAX_SKIP records in; skip MAX_SKIP with limit 1 is the page after it.
      page: count(1, MAX_SKIP + 1, 'This page, from 1', 1),
      skip: count(0, MAX_SKIP, 'Records before this page', 0),
      limit: count(1, maxLimit, 'Page size', 25),
      sort: z
        .record(
          z
            .string()
            .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
            .max(64),
          z.enum(['asc', 'desc']),
        )
        .meta({ description: 'The sort in force, field by field', example: { created_at: 'desc' } }),
      pages: count(0, MAX_SAFE, 'Pages in the whole list', 1),
      total: count(0, MAX_SAFE, 'Records matching the filters', 4),
      next: z.boolean(),
      previous: z.boolean(),
      nextUrl: pageUrl.meta({ description: 'The next page, or "" on the last page' }),
      previousUrl: z
        .union([pageUrl, z.literal(false)])
        .meta({ description: 'The previous page, or false on the first page' }),
      filters: z
        .record(z.string().max(100), z.unknown())
        .meta({ description: 'The filters in force, values typed as their fields', example: { enabled: true } }),
      data: z.array(item).max(maxLimit),
    })
    .meta({ id, description: 'A page of records' });
}
