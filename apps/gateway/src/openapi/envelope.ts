import { z, type ZodType } from 'zod';
import { MAX_SKIP } from '@pim/query';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * A whole number as the envelope reports it (counts and positions are safe JSON integers); `id`
 * names it in the document when every list shares it.
 */
const count = (min: number, max: number, description: string, example: number, id?: string) =>
  z
    .number()
    .int()
    .min(min)
    .max(max)
    .meta({ ...(id ? { id } : {}), format: max > 2_147_483_647 ? 'int64' : 'int32', description, example });

/** A page URL: the list's path and query, relative to the server. */
const pageUrl = z.string().max(8192).meta({ format: 'uri-reference', example: '/api/v1/webhooks?limit=25&page=2' });

// The fields every envelope has alike are components of their own, so each list's schema refers
// to them in a line (the page size differs with PAGE_SIZE_MAX and stays in each list).

// A window starts at most MAX_SKIP records in; skip MAX_SKIP with limit 1 is the page after it.
const listPage = count(1, MAX_SKIP + 1, 'This page, from 1', 1, 'ListPage');
const listSkip = count(0, MAX_SKIP, 'Records before this page', 0, 'ListSkip');
const listPages = count(0, MAX_SAFE, 'Pages in the whole list', 1, 'ListPages');
const listTotal = count(0, MAX_SAFE, 'Records matching the filters', 4, 'ListTotal');
const listSort = z
  .record(
    z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
      .max(64),
    z.enum(['asc', 'desc']),
  )
  .meta({ id: 'ListSort', description: 'The sort in force, field by field', example: { created_at: 'desc' } });
const listNextUrl = pageUrl.meta({
  id: 'ListNextUrl',
  format: 'uri-reference',
  example: '/api/v1/webhooks?limit=25&page=2',
  description: 'The next page, or "" on the last page',
});
const listPreviousUrl = z
  .union([pageUrl, z.literal(false)])
  .meta({ id: 'ListPreviousUrl', description: 'The previous page, or false on the first page' });
const listFilters = z.record(z.string().max(100), z.unknown()).meta({
  id: 'ListFilters',
  description: 'The filters in force, values typed as their fields',
  example: { enabled: true },
});

/** The list envelope of the interface around items of one schema; `maxLimit` bounds a page. */
export function envelopeSchema(id: string, item: ZodType, maxLimit: number) {
  return z
    .strictObject({
      page: listPage,
      skip: listSkip,
      limit: count(1, maxLimit, 'Page size', 25),
      sort: listSort,
      pages: listPages,
      total: listTotal,
      next: z.boolean(),
      previous: z.boolean(),
      nextUrl: listNextUrl,
      previousUrl: listPreviousUrl,
      filters: listFilters,
      data: z.array(item).max(maxLimit),
    })
    .meta({ id, description: 'A page of records' });
}
