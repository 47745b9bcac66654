import type { RequestHandler } from 'express';
import { ValidationError } from '@pim/errors';

/**
 * The deepest a JSON body may nest (objects and arrays). Real bodies stay under ten; deeper ones
 * would overflow the stack of the code that copies them (JSON.stringify of a bulk item) or the
 * nesting limit of the gRPC messages that carry them on (a Struct), and fail as a 500.
 */
export const MAX_JSON_DEPTH = 32;

/** What is wrong with a parsed JSON value, and where (`name.en`, `items.3.code`). */
export interface JsonProblem {
  field: string;
  kind: 'nul' | 'surrogate' | 'depth' | 'proto';
}

/**
 * The one key a JSON object cannot carry into a plain JavaScript object: `JSON.parse` keeps it as
 * an own member, but every copy made by assignment (a zod record, a merge, `obj[key] = value`)
 * sets the copy's prototype instead, so the member vanished on its way to storage or was delivered
 * without it. Refused wherever a caller names a key, never dropped.
 */
export const PROTO_KEY = '__proto__';

/** Half of a UTF-16 surrogate pair without the other half: JSON can say it (`"\ud800"`), Unicode text cannot hold it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Every lone surrogate of a text (to show it as its escape). */
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');
const escapeOf = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * A place as text an error object can carry: a NUL or a lone surrogate in a key is shown as its
 * `\u` escape (`name.en\ud800`), so the refusal of such text does not itself hold it.
 */
export const printablePlace = (field: string): string =>
  field.replaceAll('\u0000', escapeOf('\u0000')).replace(LONE_SURROGATES, escapeOf);

/** What is wrong with one string or key, if anything. */
const textProblem = (text: string): JsonProblem['kind'] | undefined =>
  text.includes('\u0000') ? 'nul' : LONE_SURROGATE.test(text) ? 'surrogate' : undefined;

/**
 * What is wrong with a key a caller names (of a JSON object, a query parameter, a form field), if
 * anything: the text problems, and `__proto__`.
 */
export const keyProblem = (key: string): JsonProblem['kind'] | undefined =>
  textProblem(key) ?? (key === PROTO_KEY ? 'proto' : undefined);

/**
 * The first place in a parsed JSON value holding the NUL character (U+0000) or a lone surrogate,
 * in a key or a string, a `__proto__` key, or nested deeper than `maxDepth`; undefined when there
 * is none. Walks without recursion, so a deeply nested body cannot exhaust the stack here either.
 */
export function jsonProblem(value: unknown, maxDepth = MAX_JSON_DEPTH): JsonProblem | undefined {
  const stack: { v: unknown; path: string; depth: number }[] = [{ v: value, path: '', depth: 0 }];
  const join = (path: string, key: string | number) => (path === '' ? String(key) : `${path}.${key}`);
  while (stack.length > 0) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      const kind = textProblem(v);
      if (kind) return { field: path === '' ? '(body)' : path, kind };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= maxDepth) return { field: path === '' ? '(body)' : path, kind: 'depth' };
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: join(path, i), depth: depth + 1 });
      continue;
    }
    // Own keys only, `__proto__` among them: JSON.parse and the query parser keep it as an own
    // member (which shadows the accessor, so reading it below reads the member).
    const keys = Object.keys(v);
    for (const k of keys) {
      const kind = keyProblem(k);
      if (kind) return { field: join(path, k), kind };
    }
    for (let i = keys.length - 1; i >= 0; i--)
      stack.push({ v: (v as Record<string, unknown>)[keys[i]], path: join(path, keys[i]), depth: depth + 1 });
  }
  return undefined;
}

/** The 400 that refuses a problem, naming its place (a key holding a NUL or a lone surrogate by its escape). */
export function refusalOf(found: JsonProblem): ValidationError {
  const field = printablePlace(found.field);
  switch (found.kind) {
    case 'nul':
      return new ValidationError(`${field} contains the NUL character (U+0000), which cannot be stored`, {
        title: 'Invalid text',
        solution: 'Remove the NUL characters (\\u0000) from the text and send the request again',
        details: [{ field, message: 'must not contain the NUL character (U+0000)' }],
      });
    case 'surrogate':
      return new ValidationError(`${field} is not valid Unicode text: it holds half of a surrogate pair`, {
        title: 'Invalid text',
        solution: 'Send text as valid UTF-8 (a \\ud800–\\udfff escape needs its other half)',
        details: [{ field, message: 'holds a lone surrogate' }],
      });
    case 'depth':
      return new ValidationError(`The body nests deeper than ${MAX_JSON_DEPTH} levels at ${field}`, {
        title: 'Body nested too deeply',
        solution: `Send objects and arrays nested at most ${MAX_JSON_DEPTH} levels deep`,
        details: [{ field, message: `nests deeper than ${MAX_JSON_DEPTH} levels` }],
      });
    case 'proto':
      return new ValidationError(
        `${field}: the key ${PROTO_KEY} cannot be stored (JavaScript reserves it for an object's prototype, so it cannot be kept as data)`,
        {
          title: 'Key cannot be stored',
          solution: `Rename the key ${PROTO_KEY} (for example to "proto") and send the request again`,
          details: [{ field, message: `the key ${PROTO_KEY} cannot be stored; rename it` }],
        },
      );
  }
}

/**
 * Refuses, with a 400 naming the place, a path, query or JSON body holding the NUL character or a
 * lone surrogate — Postgres text and jsonb cannot store either, so they failed as a 500 where they
 * reached the database (a name, a search term, a bulk upsert's COPY, an error message quoting them
 * kept for an Idempotency-Key replay) or were stored altered — a body nested deeper than
 * `MAX_JSON_DEPTH`, and a `__proto__` key or query parameter, which a free-form object (an order's
 * `metadata`, a bulk item) or the list language dropped without a word while strict objects
 * refused it as unknown: refused here, every route answers it alike.
 */
export function jsonGuard(): RequestHandler {
  return (req, _res, next) => {
    // In the path a NUL can only come percent-encoded (Node refuses a raw one).
    const found: JsonProblem | undefined = req.path.includes('%00')
      ? { field: '(path)', kind: 'nul' }
      : (jsonProblem(req.query) ?? jsonProblem(req.body));
    next(found ? refusalOf(found) : undefined);
  };
}
