import { randomUUID } from 'node:crypto';

/** JSON text that is already serialized (a stored rendering): written into larger JSON as it is. */
export class RawJson {
  constructor(readonly text: string) {}
}

/**
 * JSON.stringify, except that RawJson values anywhere in `value` are written as their text
 * instead of being serialized again. Each stands in the output first as a string only this call
 * makes (NUL + a random UUID + its number), then is spliced in.
 */
export function stringifyWithRaw(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  const raws: string[] = [];
  const nonce = randomUUID();
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (!(v instanceof RawJson)) return v;
    raws.push(v.text);
    return `\u0000raw:${nonce}:${raws.length - 1}`;
  });
  if (raws.length === 0) return text;
  let out = text;
  raws.forEach((raw, i) => {
    const mark = JSON.stringify(`\u0000raw:${nonce}:${i}`);
    const at = out.indexOf(mark);
    out = `${out.slice(0, at)}${raw}${out.slice(at + mark.length)}`;
  });
  return out;
}
