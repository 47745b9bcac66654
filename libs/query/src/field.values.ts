import { isId } from '@pim/ids';
import type { FieldType } from './resource.declaration';

// Bounded digits and exponent keep every accepted number inside what Postgres numeric parses.
const NUMBER = /^-?(?:\d{1,64}(?:\.\d{1,64})?|\.\d{1,64})(?:[eE][+-]?\d{1,3})?$/;
const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2})(?::?(\d{2}))?)?)?$/;

function validDate(v: string): boolean {
  const m = ISO_DATE.exec(v);
  if (!m) return false;
  const [, y, mo, d, h, mi, s, , oh, om] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth) return false;
  if (h !== undefined && (Number(h) > 23 || Number(mi) > 59 || Number(s ?? 0) > 59)) return false;
  if (oh !== undefined && (Number(oh) > 23 || Number(om ?? 0) > 59)) return false;
  return true;
}

/** What a field's values must look like, in words, for error messages. */
export function expectedValue(type: FieldType): string {
  switch (type) {
    case 'number':
      return 'a number such as 42 or -1.5';
    case 'boolean':
      return 'true or false';
    case 'date':
      return 'an ISO 8601 date such as 2024-01-31 or 2024-01-31T12:00:00.000Z';
    case 'id':
    case 'id[]':
      return 'an id of 24 lowercase hexadecimal characters';
    default:
      return 'a string';
  }
}

/** Whether a filter value fits a field's type (array fields take one element per value). */
export function isValidValue(type: FieldType, v: string): boolean {
  switch (type) {
    case 'number':
      return NUMBER.test(v) && Number.isFinite(Number(v));
    case 'boolean':
      return v === 'true' || v === 'false';
    case 'date':
      return validDate(v);
    case 'id':
    case 'id[]':
      return isId(v);
    default:
      // Postgres text cannot hold NUL; refusing it here keeps it a 400 rather than a 500.
      return !v.includes('\u0000');
  }
}

/** A filter value as JSON shows it: numbers and booleans typed, the rest strings. */
export function typedValue(type: FieldType | undefined, v: string): string | number | boolean {
  if (type === 'number') return Number(v);
  if (type === 'boolean' || (type === undefined && (v === 'true' || v === 'false'))) return v === 'true';
  return v;
}

/** A validated date value as Postgres should read it: a missing time is midnight and a missing offset UTC. */
export function toSqlDate(v: string): string {
  if (!v.includes('T')) return `${v}T00:00:00Z`;
  return /(?:Z|[+-]\d{2}(?::?\d{2})?)$/.test(v.slice(10)) ? v : `${v}Z`;
}
