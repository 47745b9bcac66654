import { parse as parseDisposition } from 'content-disposition';
import type { FuzzCase } from './cases';
import type { FuzzResponse } from './http';
import { validate, type Resolver, type Schema } from './schema';

/** Why a response failed the fuzz suite. */
export type FailureKind =
  /** A 5xx: the platform failed where it should have refused (or served). */
  | 'server-error'
  /** No answer at all (a reset, a closed connection, a time-out) to a request that was sent whole. */
  | 'no-answer'
  /** A 4xx whose body is not the error object of the document. */
  | 'not-error-object'
  /** A refused request changed what the platform stores. */
  | 'stored-on-refusal'
  /** An upload, an export or a download answered with another file name than the one given. */
  | 'wrong-file-name';

/** One failed check of one response. */
export interface Problem {
  kind: FailureKind;
  detail: string;
}

/** What the response checks need: the document's error schema and its resolver. */
export interface CheckContext {
  errorSchema: Schema;
  resolve: Resolver;
}

/**
 * The checks every response passes: no 5xx; every 4xx is the error object (JSON, valid against
 * the document's `Error` schema with its lengths, `code` equal to the status, `request_id` equal to
 * `X-Request-Id`); an answer to every request that was sent whole.
 */
export function checkResponse(res: FuzzResponse, ctx: CheckContext, mayGoUnanswered = false): Problem[] {
  if (res.status === 0) return mayGoUnanswered ? [] : [{ kind: 'no-answer', detail: res.error ?? 'no answer' }];
  if (res.status >= 500) return [{ kind: 'server-error', detail: `${res.status} ${excerpt(res.body)}` }];
  if (res.status < 400) return [];
  const problems = errorObjectProblems(res, ctx);
  return problems.length === 0 ? [] : [{ kind: 'not-error-object', detail: `${res.status}: ${problems.join('; ')}` }];
}

/** What is wrong with a 4xx's body as an error object (empty when it is one). */
export function errorObjectProblems(res: FuzzResponse, ctx: CheckContext): string[] {
  const type = res.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) return [`Content-Type '${type}', body ${excerpt(res.body)}`];
  let body: unknown;
  try {
    body = JSON.parse(res.body.toString('utf8'));
  } catch {
    return [`a body that is not JSON: ${excerpt(res.body)}`];
  }
  const problems = validate(ctx.errorSchema, body, ctx.resolve);
  const broken = brokenText(body);
  if (broken) problems.push(`${broken} is not well-formed text: it holds half of a surrogate pair`);
  const obj = (body ?? {}) as { code?: unknown; request_id?: unknown };
  if (obj.code !== res.status) problems.push(`code ${String(obj.code)} is not the status ${res.status}`);
  const header = res.headers['x-request-id'];
  if (obj.request_id !== undefined && header !== undefined && obj.request_id !== header)
    problems.push(`request_id ${String(obj.request_id)} is not X-Request-Id ${header}`);
  return problems.map((p) => p.slice(0, 300));
}

/** Half of a UTF-16 surrogate pair without the other half. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Where a parsed JSON value holds a string with a lone surrogate (a text cut between the halves of a character). */
export function brokenText(value: unknown, path = '(root)'): string | undefined {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? path : undefined;
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const found = brokenText(v, `${path}.${k}`);
      if (found) return found;
    }
  }
  return undefined;
}

/** The start of a body, for a failure line. */
export function excerpt(body: Buffer, max = 200): string {
  const text = body.toString('utf8');
  return text.length <= max ? JSON.stringify(text) : `${JSON.stringify(text.slice(0, max))}…(${body.length} bytes)`;
}

/**
 * What is wrong with the file name a 2xx carries, when its case expects one: a download's
 * Content-Disposition (RFC 6266: `filename*` wins over `filename`), or a record's `file_name`.
 */
export function fileNameProblems(res: FuzzResponse, expected: FuzzCase['fileName']): Problem[] {
  if (!expected || res.status < 200 || res.status > 299) return [];
  const wrong = (got: string) => [
    { kind: 'wrong-file-name' as const, detail: `expected ${JSON.stringify(expected.expected)}, got ${got}` },
  ];
  if (expected.in === 'file_name') {
    let name: unknown;
    try {
      name = (JSON.parse(res.body.toString('utf8')) as { file_name?: unknown }).file_name;
    } catch {
      return wrong(`a body that is not JSON: ${excerpt(res.body)}`);
    }
    return name === expected.expected ? [] : wrong(`file_name ${JSON.stringify(name)}`);
  }
  const header = res.headers['content-disposition'];
  if (!header) return wrong('no Content-Disposition');
  let name: string | undefined;
  try {
    name = parseDisposition(header).parameters.filename;
  } catch (err) {
    return wrong(`a Content-Disposition that does not parse (${(err as Error).message}): ${JSON.stringify(header)}`);
  }
  return name === expected.expected ? [] : wrong(`${JSON.stringify(name)} from ${JSON.stringify(header)}`);
}
