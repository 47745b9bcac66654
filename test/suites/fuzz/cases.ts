import { PER_KIND, type FixtureIds } from './fixtures';
import { requestIdOf, type FuzzRequest } from './http';
import {
  KINDS,
  isJson,
  isUpload,
  jsonBody,
  paramsIn,
  pathOf,
  sampler,
  uploadFields,
  type Build,
  type Draft,
} from './kinds';
import { parameterKey, type Operation, type Parameter } from './operations';
import { encode, paramText } from './params';
import { Prng } from './prng';
import { randomId, sampleValue, type SampleContext } from './sample';
import type { Resolver } from './schema';
import { validUpload } from './uploads';

/** One generated request: what it is for, how it was made, and the request itself. */
export interface FuzzCase {
  index: number;
  op: Operation;
  /** `valid`, or the mutation applied (`wrong-type`, `wire:overlong-url`...). */
  kind: string;
  /** What the mutation did, in words. */
  note: string;
  request: FuzzRequest;
  /** Coverage keys of the parameters the request carries. */
  parameters: string[];
  /** Mutated on purpose: expected to be refused, so it goes into a batch whose storage is compared. */
  mutated: boolean;
  /** The client cut the request short: no answer is acceptable. */
  mayGoUnanswered: boolean;
  /**
   * A name the answer must carry exactly when it is a 2xx: a download's Content-Disposition
   * (`filename*`, else `filename`), or an upload's or an export's `file_name`.
   */
  fileName?: { expected: string; in: 'content-disposition' | 'file_name' };
}

/** What generating a case needs; the same context and index always give the same case. */
export interface CaseContext {
  seed: string;
  ops: Operation[];
  resolve: Resolver;
  fixtures: FixtureIds;
  apiKey: string;
  /** The Host header of hand-written requests. */
  host: string;
  /** The methods the document declares on each path template. */
  methodsByPath: Map<string, string[]>;
}

/** A case context for a document's operations. */
export function caseContext(parts: Omit<CaseContext, 'methodsByPath'>): CaseContext {
  const methodsByPath = new Map<string, string[]>();
  for (const o of parts.ops) methodsByPath.set(o.path, [...(methodsByPath.get(o.path) ?? []), o.method]);
  return { ...parts, methodsByPath };
}

/**
 * Path segments with real ids: each `{param}` takes an id of the collection its path names so far
 * (`attributes/<id>/options`); DELETE is aimed at the records after the first two of a kind, so
 * that the others stay for the rest of the run.
 */
export function pathSegments(op: Operation, fixtures: FixtureIds, rng: Prng): string[] {
  const slots = op.path.split('/').slice(1);
  const out: string[] = [];
  for (let i = 0; i < slots.length; i++) {
    if (!slots[i].startsWith('{')) {
      out.push(slots[i]);
      continue;
    }
    const collection = out.slice(2).join('/');
    let ids = fixtures.list(collection);
    const later = slots.slice(i + 1).findIndex((s) => s.startsWith('{'));
    if (later >= 0) {
      // A parent whose children exist, so the child id is real too.
      const childPath = slots.slice(i + 1, i + 1 + later).join('/');
      const withChildren = ids.filter((id) => fixtures.list(`${collection}/${id}/${childPath}`).length > 0);
      if (withChildren.length > 0) ids = withChildren;
    }
    const last = !slots.slice(i + 1).some((s) => s.startsWith('{'));
    if (op.method === 'DELETE' && last) ids = ids.slice(PER_KIND - 1);
    out.push(ids.length > 0 ? rng.pick(ids) : randomId(rng));
  }
  return out;
}

/** A valid-looking header value that a client can send: Latin-1 only (a header carries no other text). */
function headerValue(p: Parameter, s: SampleContext): string {
  for (let tries = 0; tries < 20; tries++) {
    const v = paramText(sampleValue(p.schema, s, [p.name]));
    if (/^[\x20-\x7e\xa0-\xff]*$/.test(v)) return v;
  }
  return typeof p.schema.example === 'string' ? p.schema.example : '';
}

/** Which round an index is in (each round calls every operation once) and the operation it calls. */
export function operationAt(seed: string, ops: readonly Operation[], index: number): { op: Operation; round: number } {
  const round = Math.floor(index / ops.length);
  const order = Prng.of(seed, 'round', round).shuffle(ops.map((_, i) => i));
  return { op: ops[order[index % ops.length]], round };
}

/** Rounds within which every query parameter of an operation is sent. */
export const ROUNDS_TO_COVER = 10;

/** The query parameters a round gives an operation: a window that moves each round, so every one is sent within `ROUNDS_TO_COVER` rounds. */
export function queryWindow(params: readonly Parameter[], round: number): Parameter[] {
  if (params.length === 0) return [];
  const size = Math.min(params.length, Math.max(4, Math.ceil(params.length / ROUNDS_TO_COVER)));
  const start = (round * size) % params.length;
  return Array.from({ length: size }, (_, i) => params[(start + i) % params.length]);
}

/** The case at `index` of a run: always the same for the same seed, document and fixtures. */
export function buildCase(ctx: CaseContext, index: number): FuzzCase {
  const { op, round } = operationAt(ctx.seed, ctx.ops, index);
  const rng = Prng.of(ctx.seed, 'case', index);
  const draft: Draft = {
    method: op.method,
    segments: pathSegments(op, ctx.fixtures, rng),
    query: [],
    headers: { authorization: `Bearer ${ctx.apiKey}`, 'x-request-id': requestIdOf(ctx.seed, index) },
    parameters: new Set(paramsIn(op, 'path').map((p) => parameterKey(op, p))),
    notes: [],
  };
  const b: Build = { op, draft, rng, ctx };
  const s = sampler(b);
  for (const p of queryWindow(paramsIn(op, 'query'), round)) {
    draft.query.push([encode(p.name), encode(paramText(sampleValue(p.schema, s, [p.name])))]);
    draft.parameters.add(parameterKey(op, p));
  }
  paramsIn(op, 'header').forEach((p, i) => {
    if ((round + i) % 2 !== 0) return;
    draft.headers[p.name] = p.name === 'idempotency-key' ? `fz-${ctx.seed}-${index}` : headerValue(p, s);
    draft.parameters.add(parameterKey(op, p));
  });
  if (isJson(op)) {
    b.sample = sampleValue(op.body!.schema, s);
    jsonBody(b, JSON.stringify(b.sample));
  } else if (isUpload(op)) {
    const u = validUpload(rng, uploadFields(b));
    draft.body = u.body;
    draft.headers['content-type'] = u.contentType;
  }
  const kind = rng.weighted(KINDS.filter((k) => k.applies(op, ctx)).map((k) => [k, k.weight] as const));
  kind.apply(b);
  const halfClose = draft.raw?.halfClose ?? false;
  return {
    index,
    op,
    kind: kind.name,
    note: draft.notes.join('; '),
    request: { method: draft.method, path: pathOf(draft), headers: draft.headers, body: draft.body, raw: draft.raw },
    parameters: [...draft.parameters],
    mutated: kind.name !== 'valid',
    mayGoUnanswered: halfClose,
  };
}
