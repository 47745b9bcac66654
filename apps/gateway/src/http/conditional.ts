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
