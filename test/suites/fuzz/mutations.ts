import type { Prng } from './prng';
import type { Resolver, Schema } from './schema';

/** A place in a JSON value: its path, its value, and the schema that describes it there (if any). */
export interface Slot {
  path: (string | number)[];
  value: unknown;
  schema?: Schema;
}

/** Every place in a value, the root first, with its schema where the schema reaches. */
export function slotsOf(value: unknown, schema: Schema | undefined, resolve: Resolver): Slot[] {
  const out: Slot[] = [];
  const walk = (v: unknown, s: Schema | undefined, path: (string | number)[]) => {
    const r = s ? resolve(s) : undefined;
    const own = r?.anyOf ? r.anyOf.map(resolve).find((o) => o.type !== 'null') : r;
    out.push({ path, value: v, schema: own });
    if (Array.isArray(v)) v.forEach((item, i) => walk(item, own?.items, [...path, i]));
    else if (v && typeof v === 'object')
      for (const [k, child] of Object.entries(v))
        walk(
          child,
          own?.properties?.[k] ??
            (typeof own?.additionalProperties === 'object' ? own.additionalProperties : undefined),
          [...path, k],
        );
  };
  walk(value, schema, []);
  return out;
}

/** A deep copy of `value` with the place at `path` replaced (or removed, when `replacement` is `REMOVE`). */
export function setAt(value: unknown, path: readonly (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const copy: unknown = Array.isArray(value) ? [...value] : { ...(value as Record<string, unknown>) };
  const [head, ...rest] = path;
  const container = copy as Record<string | number, unknown>;
  const next = setAt(container[head], rest, replacement);
  if (next === REMOVE) {
    if (Array.isArray(copy)) copy.splice(Number(head), 1);
    else delete container[head];
  } else container[head] = next;
  return copy;
}

/** Marks a place to remove in `setAt`. */
export const REMOVE = Symbol('remove');

/** The JSON type of a value, as schemas name them. */
const jsonType = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** A value of another JSON type than `v`. */
export function otherType(v: unknown, rng: Prng): unknown {
  const choices: Record<string, unknown[]> = {
    string: [12345, true, { text: 'x' }, ['x'], 0],
    number: ['12', true, [1], { n: 1 }, '1e3'],
    boolean: ['true', 1, 0, 'yes', [true]],
    object: ['object', [], 1, true],
    array: [{}, 'a,b', 1, true],
    null: [{}, 'null', 0],
  };
  return rng.pick(choices[jsonType(v)] ?? choices.string);
}

/** A mutation of a JSON body: the new body (or its JSON text, when a value cannot hold it), and what was done. */
export interface BodyMutation {
  body?: unknown;
  text?: string;
  note: string;
}

type Mutator = (body: unknown, schema: Schema, rng: Prng, resolve: Resolver) => BodyMutation | undefined;

const where = (path: readonly (string | number)[]) => (path.length === 0 ? '(body)' : path.join('.'));

/** Pick a slot matching `test`, preferring ones below the root. */
function pickSlot(slots: Slot[], rng: Prng, test: (s: Slot) => boolean): Slot | undefined {
  const inner = slots.filter((s) => s.path.length > 0 && test(s));
  if (inner.length > 0) return rng.pick(inner);
  const any = slots.filter(test);
  return any.length > 0 ? rng.pick(any) : undefined;
}

/** Text with a character that Postgres cannot store, or JSON cannot pair, put in the middle. */
const spliceIn = (text: string, piece: string, rng: Prng) => {
  const at = rng.int(0, text.length);
  return text.slice(0, at) + piece + text.slice(at);
};

/** Renames a key of an object at `path` to `key(old)`. */
function renameKey(body: unknown, slot: Slot, rename: (k: string) => string): unknown {
  const obj = slot.value as Record<string, unknown>;
  const renamed = Object.fromEntries(Object.entries(obj).map(([k, v], i) => [i === 0 ? rename(k) : k, v]));
  return setAt(body, slot.path, renamed);
}

const isObject = (s: Slot) => !!s.value && typeof s.value === 'object' && !Array.isArray(s.value);
const isString = (s: Slot) => typeof s.value === 'string';
const isNumber = (s: Slot) =>
  typeof s.value === 'number' || s.schema?.type === 'integer' || s.schema?.type === 'number';

/** JSON text of a value nested `depth` levels deep (arrays or objects); text, because JSON.stringify recurses. */
export function nestedText(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array'
    ? `${'['.repeat(depth)}1${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

const PLACEHOLDER = '\u2063fuzz-placeholder\u2063';

/** The body mutations, by kind: each returns undefined when the body has no place it applies to. */
export const BODY_MUTATIONS: Record<string, Mutator> = {
  'wrong-type': (body, schema, rng, resolve) => {
    const slot = pickSlot(slotsOf(body, schema, resolve), rng, () => true)!;
    return { body: setAt(body, slot.path, otherType(slot.value, rng)), note: `${where(slot.path)} of another type` };
  },
  'missing-required': (body, schema, rng, resolve) => {
    const slot = pickSlot(
      slotsOf(body, schema, resolve),
      rng,
      (s) => isObject(s) && (s.schema?.required ?? []).some((r) => r in (s.value as object)),
    );
    if (!slot) return undefined;
    const field = rng.pick((slot.schema!.required ?? []).filter((r) => r in (slot.value as object)));
    return { body: setAt(body, [...slot.path, field], REMOVE), note: `${where([...slot.path, field])} left out` };
  },
  'extra-field': (body, schema, rng, resolve) => {
    const slot = pickSlot(slotsOf(body, schema, resolve), rng, isObject);
    if (!slot) return undefined;
    const key = rng.pick([
      'fuzz_extra',
      '',
      'a.b',
      '$where',
      'constructor',
      ' code',
      'CODE',
      '_id',
      'version',
      'k'.repeat(5_000),
      '😀'.repeat(2_500),
    ]);
    const value = rng.pick<unknown>(['x', 1, null, { a: 1 }, [1]]);
    return { body: setAt(body, [...slot.path, key], value), note: `${where(slot.path)} given '${key.slice(0, 20)}'` };
  },
  'huge-string': (body, schema, rng, resolve) => {
    const slot = pickSlot(slotsOf(body, schema, resolve), rng, (s) => isString(s) || s.path.length > 0);
    if (!slot) return undefined;
    const length = rng.pick([5_000, 70_000, 400_000]);
    const unit = rng.pick(['x', 'é', '漢', '😀', 'ab cd ']);
    const text = unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
    return { body: setAt(body, slot.path, text), note: `${where(slot.path)} of ${length} characters` };
  },
  'deep-nesting': (body, schema, rng, resolve) => {
    const slot = pickSlot(slotsOf(body, schema, resolve), rng, () => true)!;
    const depth = rng.pick([33, 100, 1_000, 20_000]);
    const kind = rng.pick(['array', 'object'] as const);
    const text = JSON.stringify(setAt(body, slot.path, PLACEHOLDER)).replace(
      JSON.stringify(PLACEHOLDER),
      nestedText(depth, kind),
    );
    return { text, note: `${where(slot.path)} nested ${depth} deep` };
  },
  'nul-char': (body, schema, rng, resolve) => {
    const slots = slotsOf(body, schema, resolve);
    const str = pickSlot(slots, rng, isString);
    const obj = pickSlot(slots, rng, (s) => isObject(s) && Object.keys(s.value as object).length > 0);
    if (obj && (!str || rng.chance(0.3)))
      return { body: renameKey(body, obj, (k) => `${k}\u0000`), note: `a key of ${where(obj.path)} holds NUL` };
    if (!str) return undefined;
    return {
      body: setAt(body, str.path, spliceIn(str.value as string, '\u0000', rng)),
      note: `${where(str.path)} holds NUL`,
    };
  },
  'lone-surrogate': (body, schema, rng, resolve) => {
    const slots = slotsOf(body, schema, resolve);
    const half = rng.pick(['\ud800', '\udfff', '\udc00x', 'x\ud83d']);
    const str = pickSlot(slots, rng, isString);
    const obj = pickSlot(slots, rng, (s) => isObject(s) && Object.keys(s.value as object).length > 0);
    if (obj && (!str || rng.chance(0.3)))
      return {
        body: renameKey(body, obj, (k) => k + half),
        note: `a key of ${where(obj.path)} holds a lone surrogate`,
      };
    if (!str) return undefined;
    return {
      body: setAt(body, str.path, spliceIn(str.value as string, half, rng)),
      note: `${where(str.path)} holds a lone surrogate`,
    };
  },
  'invalid-enum': (body, schema, rng, resolve) => {
    const slot = pickSlot(slotsOf(body, schema, resolve), rng, (s) => !!s.schema?.enum && s.path.length > 0);
    if (!slot) return undefined;
    const v = String(slot.value);
    const wrong = rng.pick([v.toUpperCase() === v ? v.toLowerCase() : v.toUpperCase(), `${v}_x`, '', ` ${v}`, 'none']);
    return { body: setAt(body, slot.path, wrong), note: `${where(slot.path)} = '${wrong}', not in its enum` };
  },
  'negative-number': (body, schema, rng, resolve) => {
    const slot = pickSlot(slotsOf(body, schema, resolve), rng, isNumber);
    if (!slot) return undefined;
    const n = rng.pick([-1, -0.5, -2147483649, -1e300, -(Number.MAX_SAFE_INTEGER + 2)]);
    return { body: setAt(body, slot.path, n), note: `${where(slot.path)} = ${n}` };
  },
  'huge-number': (body, schema, rng, resolve) => {
    const slot = pickSlot(slotsOf(body, schema, resolve), rng, isNumber);
    if (!slot) return undefined;
    const n = rng.pick([1e308, Number.MAX_SAFE_INTEGER + 2, 2147483648, 1.5, 1e-320, 4294967296]);
    return { body: setAt(body, slot.path, n), note: `${where(slot.path)} = ${n}` };
  },
  'null-value': (body, schema, rng, resolve) => {
    const slot = pickSlot(slotsOf(body, schema, resolve), rng, (s) => s.path.length > 0);
    if (!slot) return undefined;
    return { body: setAt(body, slot.path, null), note: `${where(slot.path)} = null` };
  },
  'empty-string': (body, schema, rng, resolve) => {
    const slot = pickSlot(slotsOf(body, schema, resolve), rng, isString);
    if (!slot) return undefined;
    const v = rng.pick(['', ' ', '\t\n', '\u200b']);
    return { body: setAt(body, slot.path, v), note: `${where(slot.path)} blank` };
  },
  'not-an-object': (body, _schema, rng) => {
    const v = rng.pick<unknown>([[], [body], 'text', 42, null, true, {}]);
    return { body: v, note: `the body is ${JSON.stringify(v)?.slice(0, 40)}` };
  },
  'big-array': (body, schema, rng, resolve) => {
    const slot = pickSlot(slotsOf(body, schema, resolve), rng, (s) => Array.isArray(s.value));
    if (!slot) return undefined;
    const item = (slot.value as unknown[])[0] ?? 'x';
    const n = rng.pick([1_001, 5_000, 20_000]);
    return {
      body: setAt(
        body,
        slot.path,
        Array.from({ length: n }, () => item),
      ),
      note: `${where(slot.path)} of ${n} items`,
    };
  },
};

/** JSON text made invalid in one of many ways (the body parser must refuse it with the error object). */
export function malformedJson(text: string, rng: Prng): { text: string; note: string } {
  const cut = Math.max(1, rng.int(1, Math.max(1, text.length - 1)));
  const variants: [string, string][] = [
    [text.slice(0, cut), `cut after ${cut} characters`],
    [`${text}x`, 'trailing garbage'],
    [`${text}${text}`, 'two documents'],
    [text.replace(/"/g, "'"), 'single quotes'],
    [`/* c */${text}`, 'a comment'],
    [text.replace(/:/, ':NaN,"x":'), 'NaN'],
    [text.replace(/"([^"]+)":/, '$1:'), 'an unquoted key'],
    [text.replace(/,/, ',,'), 'a double comma'],
    [text.replace(/"([^"]*)"/, '"$1\n"'), 'a raw line break in a string'],
    [text.replace(/"([^"]*)"/, '"$1\\x41"'), 'an invalid escape'],
    [text.replace(/"([^"]*)"/, '"$1\\u12"'), 'a short \\u escape'],
    ['{', 'one brace'],
    ['', 'nothing'],
    ['\u0000', 'a NUL byte'],
    [`{"a":${'['.repeat(5000)}`, 'unclosed arrays'],
    ['0x1F', 'a hex number'],
  ];
  const [out, note] = rng.pick(variants);
  // A variant that found nothing to break in this text (no comma to double) cuts it instead.
  return out === text ? { text: variants[0][0], note: variants[0][1] } : { text: out, note };
}

/** JSON text of `body` with one key written twice (the second with another value). */
export function duplicateKeys(body: unknown, rng: Prng): { text: string; note: string } | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const keys = Object.keys(body);
  if (keys.length === 0) return undefined;
  const key = rng.pick(keys);
  const text = JSON.stringify(body);
  return {
    text: `${text.slice(0, -1)},${JSON.stringify(key)}:${JSON.stringify(otherType((body as Record<string, unknown>)[key], rng))}}`,
    note: `'${key}' twice`,
  };
}
