import type { ZodError } from 'zod';
import { ValidationError, type ErrorDetail } from './errors';

/** Dotted path of a zod issue (`headers.0.key`), or `(body)` for the whole value. */
function pathOf(path: readonly PropertyKey[], prefix?: string): string {
  const joined = path.map(String).join('.');
  if (prefix) return joined ? `${prefix}.${joined}` : prefix;
  return joined || '(body)';
}

/** Turns a zod failure into one ValidationError that lists every problem at once. */
export function fromZodError(
  error: ZodError,
  opts: { title?: string; solution?: string; prefix?: string } = {},
): ValidationError {
  const details: ErrorDetail[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        details.push({ field: pathOf([...issue.path, key], opts.prefix), message: 'is not a known field' });
    } else {
      details.push({ field: pathOf(issue.path, opts.prefix), message: issue.message });
    }
  }
  const message = details.map((d) => `${d.field} ${d.message}`).join('; ');
  return new ValidationError(message, {
    title: opts.title ?? 'Invalid request body',
    solution: opts.solution ?? 'Correct the fields named in details and send the request again',
    details,
  });
}
