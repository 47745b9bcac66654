import type { Prng } from './prng';
import { sampleMatching } from './regex';
import type { Resolver, Schema } from './schema';

/** What the sampler needs: randomness, `$ref` resolution, and real ids for fields that name records. */
export interface SampleContext {
  rng: Prng;
  resolve: Resolver;
  /** A real id for a field (its name and its parents' names, innermost last), when one is known. */
  idFor(path: readonly string[]): string | undefined;
}

const ID_PATTERN = '^[0-9a-f]{24}$';
const ID_LIST_PATTERN = '^[0-9a-f]{24}(,[0-9a-f]{24})*$';
const TEXT = 'abcdefghijklmnopqrstuvwxyz0123456789';
/** Keys of records whose key pattern the document drops (localized text: `name: {en: ...}`). */
const RECORD_KEYS = ['en', 'pt', 'pt-BR', 'es'];
/** Below this depth a sample takes only what is required. */
const MAX_DEPTH = 8;

/** A random hex id (most likely no record's). */
export const randomId = (rng: Prng) => rng.string('0123456789abcdef', 24);

/** The schema without `null` in its type, and whether it allowed null. */
function nonNull(s: Schema): { schema: Schema; nullable: boolean } {
  if (!Array.isArray(s.type) || !s.type.includes('null')) return { schema: s, nullable: false };
  const rest = s.type.filter((t) => t !== 'null');
  return { schema: { ...s, type: rest.length === 1 ? rest[0] : rest }, nullable: true };
}

function sampleString(s: Schema, ctx: SampleContext, path: readonly string[]): string {
  const { rng } = ctx;
  if (s.pattern === ID_PATTERN) return ctx.idFor(path) ?? randomId(rng);
  if (s.pattern === ID_LIST_PATTERN)
    return Array.from({ length: rng.int(1, 2) }, () => ctx.idFor(path) ?? randomId(rng)).join(',');
  if (typeof s.example === 'string' && rng.chance(0.3)) return s.example;
  switch (s.format) {
    case 'date-time':
      return new Date(Date.UTC(2026, rng.int(0, 11), rng.int(1, 28), rng.int(0, 23))).toISOString();
    case 'uri':
      return `https://example.com/${rng.string(TEXT, rng.int(1, 8))}`;
    case 'uri-reference':
      return `/files/${rng.string(TEXT, rng.int(1, 8))}.png`;
    case 'email':
      return `${rng.string(TEXT, rng.int(1, 8))}@example.com`;
    case 'binary':
      return 'code;name\nA-1;Cup\n';
  }
  const max = s.maxLength ?? 40;
  if (s.pattern) {
    for (let tries = 0; tries < 5; tries++) {
      const v = sampleMatching(s.pattern, rng);
      if ([...v].length <= max && [...v].length >= (s.minLength ?? 0)) return v;
    }
    return typeof s.example === 'string' ? s.example : sampleMatching(s.pattern, rng);
  }
  const min = s.minLength ?? 1;
  return rng.string(TEXT, rng.int(min, Math.max(min, Math.min(max, min + 12))));
}

function sampleNumber(s: Schema, rng: Prng, integer: boolean): number {
  if (typeof s.example === 'number' && rng.chance(0.3)) return s.example;
  const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 0);
  const max = Math.min(s.maximum ?? min + 100, min + 100);
  const v = rng.int(Math.ceil(min), Math.floor(max));
  return integer || rng.chance(0.5) ? v : Math.min(max, v + rng.int(1, 99) / 100);
}

/**
 * A value that looks valid for a schema: its required members, some optional ones, strings that
 * match their patterns, numbers inside their bounds, and real ids where a field names a record.
 */
export function sampleValue(schema: Schema, ctx: SampleContext, path: readonly string[] = [], depth = 0): unknown {
  const { rng } = ctx;
  const resolved = ctx.resolve(schema);
  const { schema: s, nullable } = nonNull(resolved);
  if (nullable && rng.chance(0.1)) return null;
  if (s.enum) return rng.pick(s.enum);
  if (s.anyOf) {
    const options = s.anyOf.filter((o) => ctx.resolve(o).type !== 'null');
    return sampleValue(rng.pick(options.length > 0 ? options : s.anyOf), ctx, path, depth);
  }
  if (s.allOf) {
    const parts = s.allOf.map((part) => sampleValue(part, ctx, path, depth));
    return parts.every((p) => p && typeof p === 'object' && !Array.isArray(p)) ? Object.assign({}, ...parts) : parts[0];
  }
  const type = Array.isArray(s.type) ? rng.pick(s.type) : (s.type ?? (s.properties ? 'object' : undefined));
  switch (type) {
    case 'string':
      return sampleString(s, ctx, path);
    case 'integer':
      return sampleNumber(s, rng, true);
    case 'number':
      return sampleNumber(s, rng, false);
    case 'boolean':
      return rng.chance(0.5);
    case 'null':
      return null;
    case 'array': {
      const min = s.minItems ?? 0;
      const n = depth >= MAX_DEPTH ? min : rng.int(min, Math.max(min, Math.min(s.maxItems ?? 3, min + 2)));
      return Array.from({ length: n }, () => sampleValue(s.items ?? {}, ctx, path, depth + 1));
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      const required = new Set(s.required ?? []);
      for (const [k, prop] of Object.entries(s.properties ?? {})) {
        if (required.has(k) || (depth < MAX_DEPTH && rng.chance(0.5)))
          out[k] = sampleValue(prop, ctx, [...path, k], depth + 1);
      }
      if (typeof s.additionalProperties === 'object' && !s.properties) {
        for (const k of rng.shuffle(RECORD_KEYS).slice(0, rng.int(1, 2)))
          out[k] = sampleValue(s.additionalProperties, ctx, [...path, k], depth + 1);
      }
      return out;
    }
    default:
      return rng.pick<unknown>([rng.string(TEXT, 6), rng.int(0, 9), true]);
  }
}
