import type { Parameter } from './operations';
import type { Prng } from './prng';
import type { Schema } from './schema';

/** A value as a parameter carries it: booleans and numbers as text, lists comma-separated. */
export function paramText(v: unknown): string {
  if (Array.isArray(v)) return v.map(paramText).join(',');
  if (v && typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** Percent-encodes text for a path segment or a query value; a lone surrogate becomes the bytes of its UTF-8-like encoding. */
export function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    // encodeURIComponent refuses lone surrogates: write their (invalid) three-byte form instead.
    return [...text]
      .map((ch) => {
        const code = ch.codePointAt(0)!;
        if (code >= 0xd800 && code <= 0xdfff)
          return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
            .map((b) => `%${b.toString(16).toUpperCase()}`)
            .join('');
        return encodeURIComponent(ch);
      })
      .join('');
  }
}

/** Invalid path segments, already as they go on the wire. */
export const BAD_PATH_SEGMENTS = [
  'abc',
  '6740A1B2C3D4E5F601234567',
  '6740a1b2c3d4e5f6012345678',
  '6740a1b2c3d4e5f60123456',
  '%ZZ',
  '%',
  '%E0%A4',
  '%00',
  '6740a1b2c3d4e5f60123456%00',
  '%ED%A0%80',
  '%2F',
  '..',
  '%2e%2e',
  '%C3%A9',
  '%20',
  '-1',
  '0',
  'null',
  '%7Bid%7D',
  '__proto__',
  'x'.repeat(5_000),
];

/** A wrong value for a parameter of this schema, on the wire, and what it is. */
export function badValue(schema: Schema, rng: Prng): { wire: string; note: string } {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  const raw = (wire: string, note: string) => ({ wire, note });
  const text = (t: string, note: string) => ({ wire: encode(t), note });
  const choices: { wire: string; note: string }[] = [
    raw('%00', 'NUL'),
    raw(`a%00b`, 'NUL inside'),
    raw('%ED%A0%80', 'a lone surrogate (UTF-8 bytes)'),
    raw('%uD800', 'a %u escape'),
    raw('%ZZ', 'bad percent-encoding'),
    raw('%E0%A4', 'a cut UTF-8 sequence'),
    raw('%FF%FE', 'bytes that are not UTF-8'),
    raw('', 'empty'),
    text('x'.repeat(rng.pick([1_001, 9_000])), 'very long'),
    text('é漢😀', 'non-ASCII'),
    text('\u0001\u001f', 'control characters'),
    text(`' OR 1=1 --`, 'SQL'),
    text('{"$gt":""}', 'an operator object'),
  ];
  if (type === 'integer' || type === 'number')
    choices.push(
      text('abc', 'not a number'),
      text('1.5', 'a fraction'),
      text('1e400', 'beyond a double'),
      text('-1', 'negative'),
      text('99999999999999999999999', 'beyond 64 bits'),
      text(String((schema.maximum ?? 100) + 1), 'above the maximum'),
      text(String((schema.minimum ?? 0) - 1), 'below the minimum'),
      text('0x10', 'hex'),
      text('NaN', 'NaN'),
      text('Infinity', 'Infinity'),
    );
  if (type === 'boolean') choices.push(text('yes', 'not a boolean'), text('TRUE', 'upper case'), text('2', 'a number'));
  if (schema.pattern || schema.enum)
    choices.push(
      text('-', 'not the pattern'),
      text(',,', 'empty list items'),
      text('2026-13-45T25:61:61Z', 'an impossible date'),
      text('_id,nope', 'an unknown name'),
      text('-' + 'a'.repeat(200), 'a long unknown name'),
    );
  return rng.pick(choices);
}

/** Unknown query parameter names (the list language must refuse or ignore them with care). */
export const UNKNOWN_QUERY_NAMES = [
  'fuzz_unknown',
  'code_regex',
  'price[gt]',
  '__proto__',
  'constructor',
  'limit.x',
  '%00name',
  '%ZZ',
  'attributes.',
  'attributes.nope.en',
  '_id__in',
  'a'.repeat(300),
];

/** A wrong value for a header parameter, and what it is (`undici` refuses CR, LF and NUL, so none here). */
export function badHeader(p: Parameter, rng: Prng): { value: string; note: string } {
  return rng.pick([
    { value: 'garbage', note: 'not an ETag' },
    { value: '"abc"', note: 'a non-numeric ETag' },
    { value: '"99999999999"', note: 'an ETag beyond its digits' },
    { value: 'W/"1", *', note: 'a list with *' },
    { value: 'x'.repeat(5_000), note: 'very long' },
    { value: 'a b', note: 'a space' },
    { value: 'é', note: 'a latin-1 byte' },
    { value: '', note: 'empty' },
    { value: '\t', note: 'whitespace only' },
    { value: `${p.name}`, note: 'its own name' },
  ]);
}
