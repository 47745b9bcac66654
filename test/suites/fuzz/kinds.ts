import { collectionOfField } from './fixtures';
import { BODY_MUTATIONS, duplicateKeys, malformedJson } from './mutations';
import { parameterKey, type Operation, type Parameter } from './operations';
import { BAD_PATH_SEGMENTS, UNKNOWN_QUERY_NAMES, badHeader, badValue, encode, paramText } from './params';
import type { Prng } from './prng';
import { randomId, sampleValue, type SampleContext } from './sample';
import type { CaseContext } from './cases';
import { UPLOAD_MUTATIONS } from './uploads';
import { WIRE_VARIANTS } from './wire';

/** A request being built: encoded path segments and query pairs, headers, body. */
export interface Draft {
  method: string;
  segments: string[];
  query: [string, string | undefined][];
  headers: Record<string, string>;
  body?: Buffer;
  raw?: { bytes: Buffer; halfClose?: boolean };
  parameters: Set<string>;
  notes: string[];
}

/** A case being built: its operation, its draft, its randomness and its context. */
export interface Build {
  op: Operation;
  draft: Draft;
  rng: Prng;
  ctx: CaseContext;
  /** The valid-looking JSON body (JSON operations only). */
  sample?: unknown;
}

/** Whether an operation takes a JSON body. */
export const isJson = (op: Operation) => !!op.body && op.body.contentType.includes('json');
/** Whether an operation takes a multipart upload. */
export const isUpload = (op: Operation) => op.body?.contentType === 'multipart/form-data';
/** An operation's parameters in one place. */
export const paramsIn = (op: Operation, where: Parameter['in']) => op.parameters.filter((p) => p.in === where);

/** The path and query of a draft, as they go on the wire. */
export const pathOf = (d: Draft) =>
  `/${d.segments.join('/')}${d.query.length === 0 ? '' : `?${d.query.map(([k, v]) => (v === undefined ? k : `${k}=${v}`)).join('&')}`}`;

/** Sets a draft's body to JSON text, with its Content-Type. */
export const jsonBody = (b: Build, text: string, contentType = 'application/json') => {
  b.draft.body = Buffer.from(text, 'utf8');
  b.draft.headers['content-type'] = contentType;
};

/** Sets the body to a body mutation's result (falling back to a wrong type where it has no place). */
function mutateBody(b: Build, name: string): void {
  const schema = b.op.body!.schema;
  const m =
    BODY_MUTATIONS[name](b.sample, schema, b.rng, b.ctx.resolve) ??
    BODY_MUTATIONS['wrong-type'](b.sample, schema, b.rng, b.ctx.resolve)!;
  jsonBody(b, m.text ?? JSON.stringify(m.body) ?? 'null');
  b.draft.notes.push(m.note);
}

/** A mutation a case may apply: when it applies, how likely it is, and what it does to the draft. */
export interface Kind {
  name: string;
  weight: number;
  applies(op: Operation, ctx: CaseContext): boolean;
  apply(b: Build): void;
}

const always = () => true;

/** Every kind of case: valid-looking, then each mutation of a body, an upload, a parameter, the authorization, the method, the path or the bytes on the wire. */
export const KINDS: Kind[] = [
  { name: 'valid', weight: 30, applies: always, apply: () => undefined },
  ...Object.keys(BODY_MUTATIONS).map((name) => ({
    name,
    weight: 2.5,
    applies: isJson,
    apply: (b: Build) => mutateBody(b, name),
  })),
  {
    name: 'malformed-json',
    weight: 4,
    applies: isJson,
    apply: (b) => {
      const m = malformedJson(JSON.stringify(b.sample), b.rng);
      jsonBody(b, m.text);
      b.draft.notes.push(m.note);
    },
  },
  {
    name: 'duplicate-keys',
    weight: 1,
    applies: isJson,
    apply: (b) => {
      const m = duplicateKeys(b.sample, b.rng) ?? { text: '{"a":1,"a":2}', note: "'a' twice" };
      jsonBody(b, m.text);
      b.draft.notes.push(m.note);
    },
  },
  {
    name: 'wrong-content-type',
    weight: 3,
    applies: (op) => !isUpload(op),
    apply: (b) => {
      const type = b.rng.pick([
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/xml',
        'multipart/form-data; boundary=x',
        'application/json; charset=latin1',
        'application/json; charset=utf-16',
        'application/json; charset=nope',
        'application/json, text/plain',
        '*/*',
        'application/octet-stream',
        '',
      ]);
      jsonBody(b, JSON.stringify(b.sample ?? {}), type);
      if (type === '') delete b.draft.headers['content-type'];
      b.draft.notes.push(`Content-Type '${type}'`);
    },
  },
  {
    name: 'empty-body',
    weight: 1.5,
    applies: isJson,
    apply: (b) => {
      const text = b.rng.pick(['', 'null', '""', '   ']);
      jsonBody(b, text);
      b.draft.notes.push(`body ${JSON.stringify(text)}`);
    },
  },
  {
    name: 'invalid-utf8',
    weight: 1,
    applies: isJson,
    apply: (b) => {
      const bad = b.rng.pick([[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82]]);
      const text = JSON.stringify(b.sample);
      const at = Math.max(1, text.indexOf('"', 1) + 1);
      b.draft.body = Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from(bad), Buffer.from(text.slice(at))]);
      b.draft.headers['content-type'] = 'application/json';
      b.draft.notes.push(`bytes ${Buffer.from(bad).toString('hex')} inside a string`);
    },
  },
  {
    name: 'oversize-body',
    weight: 0.3,
    applies: isJson,
    apply: (b) => {
      jsonBody(b, JSON.stringify({ ...(b.sample as object), padding: 'p'.repeat(1_100_000) }));
      b.draft.notes.push('a body over 1 MB');
    },
  },
  {
    name: 'unexpected-body',
    weight: 2,
    applies: (op) => !op.body,
    apply: (b) => {
      jsonBody(b, JSON.stringify(b.rng.pick<unknown>([{ a: 1 }, [], 'x', { code: 'x'.repeat(5_000) }])));
      b.draft.notes.push('a JSON body where none is taken');
    },
  },
  ...Object.keys(UPLOAD_MUTATIONS).map((name) => ({
    name,
    weight: 3,
    applies: isUpload,
    apply: (b: Build) => {
      const u = UPLOAD_MUTATIONS[name](b.rng, uploadFields(b));
      b.draft.body = u.body;
      b.draft.headers['content-type'] = u.contentType;
      b.draft.notes.push(u.note);
    },
  })),
  {
    name: 'path-bad-segment',
    weight: 6,
    applies: (op) => paramsIn(op, 'path').length > 0,
    apply: (b) => {
      const slots = b.op.path.split('/').slice(1);
      const at = b.rng.pick(slots.map((s, i) => (s.startsWith('{') ? i : -1)).filter((i) => i >= 0));
      const bad = b.rng.pick(BAD_PATH_SEGMENTS);
      b.draft.segments[at] = bad;
      b.draft.notes.push(`${slots[at]} = ${bad.slice(0, 40)}`);
    },
  },
  {
    name: 'path-unknown-id',
    weight: 3,
    applies: (op) => paramsIn(op, 'path').length > 0,
    apply: (b) => {
      const slots = b.op.path.split('/').slice(1);
      const at = b.rng.pick(slots.map((s, i) => (s.startsWith('{') ? i : -1)).filter((i) => i >= 0));
      b.draft.segments[at] = randomId(b.rng);
      b.draft.notes.push(`${slots[at]} names no record`);
    },
  },
  {
    name: 'query-bad-value',
    weight: 8,
    applies: (op) => paramsIn(op, 'query').length > 0,
    apply: (b) => {
      const p = b.rng.pick(paramsIn(b.op, 'query'));
      const bad = badValue(p.schema, b.rng);
      b.draft.query = b.draft.query.filter(([k]) => k !== encode(p.name));
      b.draft.query.push([encode(p.name), bad.wire]);
      b.draft.parameters.add(parameterKey(b.op, p));
      b.draft.notes.push(`${p.name}: ${bad.note}`);
    },
  },
  {
    name: 'query-unknown',
    weight: 2,
    applies: always,
    apply: (b) => {
      const name = b.rng.pick(UNKNOWN_QUERY_NAMES);
      b.draft.query.push([name, b.rng.pick(['1', 'x', '', '%00'])]);
      b.draft.notes.push(`unknown query parameter ${name.slice(0, 40)}`);
    },
  },
  {
    name: 'query-repeated',
    weight: 2,
    applies: (op) => paramsIn(op, 'query').length > 0,
    apply: (b) => {
      const p = b.rng.pick(paramsIn(b.op, 'query'));
      const v = encode(paramText(sampleValue(p.schema, sampler(b))));
      b.draft.query.push([encode(p.name), v], [encode(p.name), v]);
      b.draft.parameters.add(parameterKey(b.op, p));
      b.draft.notes.push(`${p.name} twice`);
    },
  },
  {
    name: 'header-bad',
    weight: 4,
    applies: (op) => paramsIn(op, 'header').length > 0,
    apply: (b) => {
      const p = b.rng.pick(paramsIn(b.op, 'header'));
      const bad = badHeader(p, b.rng);
      b.draft.headers[p.name] = bad.value;
      b.draft.parameters.add(parameterKey(b.op, p));
      b.draft.notes.push(`${p.name}: ${bad.note}`);
    },
  },
  {
    name: 'auth',
    weight: 2,
    applies: always,
    apply: (b) => {
      const key = b.ctx.apiKey;
      const auth = b.rng.pick([
        undefined,
        'Bearer',
        'Bearer ',
        `Basic ${Buffer.from('admin:admin').toString('base64')}`,
        `Bearer ${key}x`,
        `Bearer ${key.slice(0, -1)}`,
        `Bearer ${'x'.repeat(5_000)}`,
        `Bearer pim_fuzzfuzzfuzz_${'A'.repeat(43)}`,
        `Bearer  ${key}`,
        `${key}`,
      ]);
      if (auth === undefined) delete b.draft.headers.authorization;
      else b.draft.headers.authorization = auth;
      b.draft.notes.push(`authorization ${auth === undefined ? 'missing' : JSON.stringify(auth.slice(0, 30))}`);
    },
  },
  {
    name: 'other-method',
    weight: 2,
    applies: (op, ctx) => otherMethods(op, ctx).length > 0,
    apply: (b) => {
      b.draft.method = b.rng.pick(otherMethods(b.op, b.ctx));
      b.draft.notes.push(`${b.draft.method} is not declared on ${b.op.path}`);
    },
  },
  {
    name: 'unknown-path',
    weight: 1,
    applies: always,
    apply: (b) => {
      const s = b.draft.segments;
      const variant = b.rng.pick([
        () => s.push('fuzz'),
        () => s.push(''),
        () => (s[0] = 'API'),
        () => (s[1] = 'v2'),
        () => (s[s.length - 1] = `${s[s.length - 1]};jsessionid=1`),
        () => s.splice(2, 0, '..', 'v1'),
        () => s.push('%2F..'),
        () => s.splice(2, 0, ''),
      ]);
      variant();
      b.draft.notes.push(`path ${pathOf(b.draft).slice(0, 80)}`);
    },
  },
  ...Object.keys(WIRE_VARIANTS).map((name) => ({
    name: `wire:${name}`,
    weight: 0.6,
    applies: always,
    apply: (b: Build) => {
      const w = WIRE_VARIANTS[name](
        {
          method: b.draft.method,
          path: pathOf(b.draft),
          host: b.ctx.host,
          authorization: b.draft.headers.authorization ?? '',
          requestId: b.draft.headers['x-request-id'],
          body: b.draft.body,
        },
        b.rng,
      );
      b.draft.raw = { bytes: w.bytes, halfClose: w.halfClose };
      b.draft.notes.push(w.note);
    },
  })),
];

/** Methods the document does not declare on an operation's path (OPTIONS always among them). */
const otherMethods = (op: Operation, ctx: CaseContext) =>
  ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].filter((m) => !ctx.methodsByPath.get(op.path)?.includes(m));

/** The sampler of a case being built: its randomness, and fixture ids for fields that name records. */
export function sampler(b: Build): SampleContext {
  return {
    rng: b.rng,
    resolve: b.ctx.resolve,
    idFor: (path) => {
      const collection = collectionOfField(path);
      const ids = collection ? b.ctx.fixtures.list(collection) : [];
      return ids.length > 0 ? b.rng.pick(ids) : undefined;
    },
  };
}

/** The form fields of an upload: some real ids, sometimes. */
export function uploadFields(b: Build): Record<string, string> {
  const fields: Record<string, string> = {};
  const some = (name: string, collection: string) => {
    const ids = b.ctx.fixtures.list(collection);
    if (ids.length > 0 && b.rng.chance(0.3)) fields[name] = b.rng.pick(ids);
  };
  some('catalog_id', 'catalogs');
  some('category_id', 'categories');
  some('from_template_id', 'import-templates');
  return fields;
}
