// `npm run openapi:breaking`: what a client written against the committed OpenAPI document (before
// this change) would lose with the document now. The v1 API only grows, so each of these fails:
// an operation gone; a parameter or filter key it accepted gone, or newly required; a field of a
// request body gone, or newly required, or the body newly required; a field of a 2xx answer gone,
// or no longer always there. How the document says it may change (a parameter moved into a shared
// component, filter keys into a list's `filter` object): keys are compared, not their wording.
// Base: `--against <ref>`, else OPENAPI_BREAKING_AGAINST, else main's merge base off main, else HEAD~1.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const root = resolve(__dirname, '..', '..');
/** The committed document (the one `npm run openapi:generate` writes). */
const DOCUMENT = 'libs/api-client/openapi.json';

type Schema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  patternProperties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
};
type Parameter = {
  $ref?: string;
  name: string;
  in: string;
  required?: boolean;
  style?: string;
  explode?: boolean;
  schema?: Schema;
};
type MediaType = { schema?: Schema };
type Response = { $ref?: string; content?: Record<string, MediaType> };
type Operation = {
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, MediaType> };
  responses?: Record<string, Response>;
};
/** An OpenAPI document as far as this check reads it. */
export type ApiDocument = {
  paths?: Record<string, Record<string, Operation>>;
  components?: {
    schemas?: Record<string, Schema>;
    parameters?: Record<string, Parameter>;
    responses?: Record<string, Response>;
  };
};

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

/** A `#/components/<kind>/<name>` reference's target, or the object itself. */
function deref<T extends { $ref?: string }>(doc: ApiDocument, value: T | undefined): T | undefined {
  let v = value;
  for (let hops = 0; v?.$ref && hops < 10; hops++) {
    const [, kind, name] = /^#\/components\/([^/]+)\/(.+)$/.exec(v.$ref) ?? [];
    v = (doc.components as Record<string, Record<string, T>> | undefined)?.[kind]?.[name];
  }
  return v;
}

/**
 * An object schema's properties and required fields: `allOf` parts merged; of `anyOf`/`oneOf`
 * variants (a record or null, an id or the record it names), the properties of every object
 * variant, required where each object variant requires them.
 */
function objectOf(
  doc: ApiDocument,
  schema: Schema | undefined,
): { properties: Record<string, Schema>; required: string[] } {
  const s = deref(doc, schema);
  const parts = [s, ...(s?.allOf ?? []).map((p) => deref(doc, p))];
  const variants = [...(s?.anyOf ?? []), ...(s?.oneOf ?? [])]
    .map((v) => objectOf(doc, v))
    .filter((v) => Object.keys(v.properties).length > 0);
  const required = parts.flatMap((p) => p?.required ?? []);
  if (variants.length > 0)
    required.push(...variants[0].required.filter((f) => variants.every((v) => v.required.includes(f))));
  return {
    properties: Object.assign({}, ...parts.map((p) => p?.properties ?? {}), ...variants.map((v) => v.properties)),
    required,
  };
}

/** The keys a `^(a|b)_(x|y)$` pattern names; undefined for any other pattern. */
function patternKeys(pattern: string): string[] | undefined {
  const m = /^\^\((.+)\)_\((.+)\)\$$/.exec(pattern);
  if (!m) return undefined;
  return m[1]
    .split('|')
    .map((f) => f.replace(/\\(.)/g, '$1'))
    .flatMap((field) => m[2].split('|').map((op) => `${field}_${op}`));
}

/** What an operation's parameters accept: named keys (required or not) and patterns of keys. */
function accepted(doc: ApiDocument, op: Operation): { keys: Map<string, boolean>; patterns: string[] } {
  const keys = new Map<string, boolean>();
  const patterns: string[] = [];
  for (const raw of op.parameters ?? []) {
    const p = deref(doc, raw);
    if (!p) continue;
    if (p.in === 'query' && p.style === 'form' && p.explode === true) {
      // An exploded object: each property, and each key its patterns name, is a query parameter.
      const object = deref(doc, p.schema);
      for (const key of Object.keys(object?.properties ?? {})) keys.set(`query:${key}`, false);
      for (const pattern of Object.keys(object?.patternProperties ?? {})) {
        const named = patternKeys(pattern);
        if (named) for (const key of named) keys.set(`query:${key}`, false);
        else patterns.push(pattern);
      }
      continue;
    }
    keys.set(`${p.in}:${p.in === 'header' ? p.name.toLowerCase() : p.name}`, p.required === true);
  }
  return { keys, patterns };
}

/** Whether `now` accepts a key `before` accepted (by name, or by one of its patterns). */
function stillAccepted(now: ReturnType<typeof accepted>, key: string): boolean {
  if (now.keys.has(key)) return true;
  const [where, name] = key.split(/:(.*)/s);
  return where === 'query' && now.patterns.some((p) => new RegExp(p).test(name));
}

/** Fields of a schema that `now` lost (or, for answers, no longer always has), recursively. */
function fieldChanges(
  base: ApiDocument,
  now: ApiDocument,
  before: Schema | undefined,
  after: Schema | undefined,
  at: string,
  kind: 'request' | 'response',
  seen: Set<string>,
): string[] {
  const key = `${before?.$ref ?? ''}|${after?.$ref ?? ''}|${kind}`;
  if (before?.$ref && seen.has(key)) return [];
  seen.add(key);
  const b = deref(base, before);
  const a = deref(now, after);
  if (!b || !a) return [];
  if (b.items || a.items) return fieldChanges(base, now, b.items, a.items, `${at}[]`, kind, seen);
  const was = objectOf(base, b);
  const is = objectOf(now, a);
  const problems: string[] = [];
  for (const [name, schema] of Object.entries(was.properties)) {
    const here = `${at}.${name}`;
    if (!is.properties[name]) {
      problems.push(`${here} is gone`);
      continue;
    }
    if (kind === 'response' && was.required.includes(name) && !is.required.includes(name))
      problems.push(`${here} is no longer always there`);
    if (kind === 'request' && !was.required.includes(name) && is.required.includes(name))
      problems.push(`${here} is now required`);
    problems.push(...fieldChanges(base, now, schema, is.properties[name], here, kind, seen));
  }
  return problems;
}

/** Every change of `now` that breaks a client of `base`, as sentences. */
export function breakingChanges(base: ApiDocument, now: ApiDocument): string[] {
  const problems: string[] = [];
  for (const [path, item] of Object.entries(base.paths ?? {})) {
    for (const method of METHODS) {
      const before = item[method];
      if (!before) continue;
      const name = `${method.toUpperCase()} ${path}`;
      const after = now.paths?.[path]?.[method];
      if (!after) {
        problems.push(`${name}: the operation is gone`);
        continue;
      }
      const was = accepted(base, before);
      const is = accepted(now, after);
      for (const [key, required] of was.keys) {
        if (!stillAccepted(is, key)) problems.push(`${name}: parameter ${key} is gone`);
        else if (!required && is.keys.get(key) === true) problems.push(`${name}: parameter ${key} is now required`);
      }
      for (const pattern of was.patterns)
        if (!is.patterns.includes(pattern)) problems.push(`${name}: parameters matching ${pattern} are gone`);
      const body = (op: Operation) => op.requestBody?.content?.['application/json']?.schema;
      if (before.requestBody && !after.requestBody) problems.push(`${name}: the request body is gone`);
      if (before.requestBody && !before.requestBody.required && after.requestBody?.required)
        problems.push(`${name}: the request body is now required`);
      problems.push(...fieldChanges(base, now, body(before), body(after), `${name} body`, 'request', new Set()));
      for (const [status, r] of Object.entries(before.responses ?? {})) {
        if (!status.startsWith('2')) continue;
        const was200 = deref(base, r)?.content?.['application/json']?.schema;
        const is200 = deref(now, after.responses?.[status])?.content?.['application/json']?.schema;
        if (was200 && !is200) {
          problems.push(`${name}: the ${status} answer's JSON body is gone`);
          continue;
        }
        problems.push(...fieldChanges(base, now, was200, is200, `${name} ${status}`, 'response', new Set()));
      }
    }
  }
  return problems;
}

const git = (...args: string[]) =>
  execFileSync('git', args, {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    maxBuffer: 1 << 28,
  }).trim();
const tryGit = (...args: string[]) => {
  try {
    return git(...args);
  } catch {
    return '';
  }
};

/** The commit to compare with, as proto:breaking picks it. */
function baseRef(): string {
  const flag = process.argv.indexOf('--against');
  if (flag > 0 && process.argv[flag + 1]) return process.argv[flag + 1];
  if (process.env.OPENAPI_BREAKING_AGAINST) return process.env.OPENAPI_BREAKING_AGAINST;
  const branch = tryGit('rev-parse', '--abbrev-ref', 'HEAD');
  if (branch !== 'main' && tryGit('rev-parse', '--verify', 'main')) return tryGit('merge-base', 'HEAD', 'main');
  return tryGit('rev-parse', '--verify', 'HEAD~1');
}

function main(): void {
  const ref = baseRef();
  if (!ref) {
    console.log('openapi:breaking: no earlier commit to compare against; nothing to check');
    return;
  }
  const text = tryGit('show', `${ref}:${DOCUMENT}`);
  if (!text) {
    console.log(`openapi:breaking: ${ref.slice(0, 12)} has no ${DOCUMENT}; nothing to compare`);
    return;
  }
  const problems = breakingChanges(
    JSON.parse(text) as ApiDocument,
    JSON.parse(readFileSync(resolve(root, DOCUMENT), 'utf8')) as ApiDocument,
  );
  if (problems.length > 0) {
    console.error(
      `openapi:breaking: ${DOCUMENT} breaks clients of ${ref.slice(0, 12)} (${problems.length}):\n  ${problems.join('\n  ')}\nAdd instead of changing (optional fields, new operations), or start a v2.`,
    );
    process.exit(1);
  }
  console.log(`openapi:breaking: no breaking change against ${ref.slice(0, 12)}`);
}

if (require.main === module) main();
