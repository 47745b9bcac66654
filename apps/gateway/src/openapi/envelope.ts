import { z, type ZodType } from 'zod';

/** The list envelope of interface 2.15 around items of one schema. */
export function envelopeSchema(id: string, item: ZodType) {
  return z
    .strictObject({
      page: z.number().int(),
      skip: z.number().int(),
      limit: z.number().int(),
      sort: z.record(z.string(), z.enum(['asc', 'desc'])),
      pages: z.number().int(),
      total: z.number().int(),
      next: z.boolean(),
      previous: z.boolean(),
      nextUrl: z.string().max(4000),
      previousUrl: z.union([z.string().max(4000), z.literal(false)]),
      filters: z.record(z.string(), z.unknown()),
      data: z.array(item).max(100),
    })
    .meta({ id, description: 'A page of records (interface 2.15)' });
}
