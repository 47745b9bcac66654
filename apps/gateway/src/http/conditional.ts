import { z } from 'zod';
import { ValidationError } from '@pim/errors';

/** The version an If-Match header asks for: `"3"`, `W/"3"` or `3`; `*` or absent means any. */
export function expectedVersion(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '*' || header.trim() === '') return undefined;
  const m = /^\s*(?:W\/)?"?(\d{1,9})"?\s*$/.exec(header);
  if (!m) {
    throw new ValidationError(`If-Match '${header}' is not an ETag this API issued`, {
      title: 'Invalid If-Match',
      solution: 'Send the ETag of the record as read, e.g. If-Match: "3"',
      details: [{ field: 'If-Match', message: 'must be a quoted version number such as "3"' }],
    });
  }
  return Number(m[1]);
}

/** The ETag of a record at a version. */
export const etag = (version: number): string => `"${version}"`;

/** The If-Match request header of conditional writes, as expectedVersion() reads it. */
export const ifMatchHeader = z.object({
  'if-match': z
    .string()
    .regex(/^\s*(\*|(W\/)?"?\d{1,9}"?)\s*$/)
    .max(32)
    .optional()
    .meta({ description: 'Write only if the record is still at this ETag (`*`: any version)', example: '"3"' }),
});

/** The ETag response header of a record. */
export const etagHeaders = z.object({
  ETag: z
    .string()
    .regex(/^"\d{1,10}"$/)
    .max(12)
    .meta({ description: 'Version of the record; send it back in If-Match or If-None-Match', example: '"3"' }),
});

/** The Location response header of a created record. */
export const locationHeaders = z.object({
  Location: z.string().max(2048).meta({
    format: 'uri-reference',
    description: 'Path of the new record',
    example: '/api/v1/webhooks/6740a1b2c3d4e5f601234567',
  }),
});
