/**
 * The values of an `_in` or `_nin` filter (`code_in=a,b`): split on commas, where `\,` is a comma
 * inside a value and `\\` a backslash; any other backslash is kept as written. So every value,
 * a code holding a comma included, can be named in one list.
 */
export function splitListValues(text: string): string[] {
  const out: string[] = [];
  let value = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const next = text[i + 1];
    if (c === '\\' && (next === ',' || next === '\\')) {
      value += next;
      i++;
    } else if (c === ',') {
      out.push(value);
      value = '';
    } else value += c;
  }
  out.push(value);
  return out;
}

/** Values as one `_in` or `_nin` parameter: commas and backslashes in each escaped (the inverse of `splitListValues`). */
export function joinListValues(values: readonly string[]): string {
  return values.map((v) => v.replace(/[\\,]/g, (c) => `\\${c}`)).join(',');
}
