import type { AttributeType, TypeConfig } from '@pim/resources';
import { isEmptyCell, type Cell } from './cells';
import { UTC } from '@pim/resources';
import { wallTimeToInstant } from './zones';

// Cells of an import turned into attribute values, as the catalog's bulk upsert takes them
// (apps/catalog/src/product/product.values.ts). Only conversion happens here: text to a typed value,
// refusing what cannot be converted; bounds, lengths, patterns and allowed currencies are the
// catalog's to check. Spreadsheets are written by Brazilian and English users, so numbers take a
// decimal comma or point and dates are day first (31/01/2024) when not ISO (2024-01-31).

/** A cell's value, or why it cannot be one (a short sentence for a person that quotes the cell). */
export type Parsed<T> = { value: T } | { error: string };

/** The attribute as an import knows it. */
export interface CellAttribute {
  key: string;
  type: AttributeType;
  type_config?: TypeConfig;
  options?: { value: string; label?: string }[];
  localizable: boolean;
}

const ERROR_MAX = 300;
const QUOTED_MAX = 60;
const OPTION_MAX = 40;
const OPTIONS_LISTED = 10;
const DAY_MS = 86_400_000;

/** Text cut to `max` characters, with `…` when cut. */
const clip = (text: string, max: number): string => {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
};

/** Text in double quotes, cut when long, for an error message. */
const quote = (text: string, max = QUOTED_MAX): string => JSON.stringify(clip(text, max));

/** A refusal: the message cut to the length an error may have. */
const fail = (message: string): { error: string } => ({ error: clip(message, ERROR_MAX) });

/** A number as plain decimal text (1e-7 → 0.0000001); huge or tiny ones keep their exponent. */
function plainNumber(n: number): string {
  const text = String(n);
  const match = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!match) return text;
  const [, sign, whole, fraction = '', exp] = match;
  const exponent = Number(exp);
  if (Math.abs(exponent) > 30) return text;
  const digits = whole + fraction;
  const point = whole.length + exponent;
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** Whether a date is at 00:00:00.000 UTC (a date-only spreadsheet value). */
const isUtcMidnight = (date: Date): boolean => date.getTime() % DAY_MS === 0;

/** A trimmed cell's text: numbers plainly (12.5), booleans as true/false, dates as ISO; nothing for an empty cell. */
export function parseTextCell(cell: Cell | undefined): string | undefined {
  if (cell === null || cell === undefined) return undefined;
  if (typeof cell === 'number') return plainNumber(cell);
  if (typeof cell === 'boolean') return String(cell);
  if (cell instanceof Date) {
    if (Number.isNaN(cell.getTime())) return String(cell);
    const iso = cell.toISOString();
    return isUtcMidnight(cell) ? iso.slice(0, 10) : iso;
  }
  const text = cell.trim();
  return text === '' ? undefined : text;
}

/** The separators of a list cell, the first present of them splitting it. */
const LIST_SEPARATORS = ['|', ';', ','] as const;
/** What a backslash escapes in a list cell: a separator, or a backslash. */
const ESCAPED = new Set<string>([...LIST_SEPARATORS, '\\']);

/**
 * A cell's items, split on `|`, else `;`, else `,` (the first present), trimmed, empties dropped.
 * A backslash keeps the separator after it inside an item (`AB\|1` is one item, `AB|1`; `\\` is a
 * backslash), so an item such as a code may hold any of them; any other backslash is kept as written.
 */
export function splitList(cell: Cell | undefined): string[] {
  const text = parseTextCell(cell);
  if (text === undefined) return [];
  if (typeof cell !== 'string') return [text];
  // Each character of the cell, with whether a backslash escaped it.
  const chars: { c: string; escaped: boolean }[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\' && ESCAPED.has(text[i + 1])) chars.push({ c: text[++i], escaped: true });
    else chars.push({ c: text[i], escaped: false });
  }
  const separator = LIST_SEPARATORS.find((s) => chars.some((ch) => ch.c === s && !ch.escaped));
  const items: string[] = [''];
  for (const { c, escaped } of chars) {
    if (c === separator && !escaped) items.push('');
    else items[items.length - 1] += c;
  }
  return items.map((item) => item.trim()).filter((item) => item !== '');
}

/**
 * Items as one list cell that `splitList` reads back the same: joined with `|`, a backslash put
 * before each `|` and backslash inside an item, and before `;` and `,` too when the cell holds one
 * item (no `|` then says which separator splits it).
 */
export function joinList(items: readonly string[]): string {
  const escaped = items.length > 1 ? /[|\\]/g : /[|;,\\]/g;
  return items.map((item) => item.replace(escaped, (c) => `\\${c}`)).join('|');
}

// ——— booleans ———

const TRUE_WORDS = new Set(['true', 'yes', 'y', 'sim', 's', 'verdadeiro', 'v', '1', 'on', 'x']);
const FALSE_WORDS = new Set(['false', 'no', 'n', 'nao', 'falso', 'f', '0', 'off']);

/** Text lower-cased without accents (não → nao). */
const folded = (text: string): string => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/** A yes/no cell: a boolean cell, 1/0, or true/false, yes/no, y/n, sim/não, s/n, verdadeiro/falso, v/f, on/off, x (case and accents ignored). */
export function parseBooleanCell(cell: Cell | undefined): Parsed<boolean> | undefined {
  const text = parseTextCell(cell);
  if (text === undefined) return undefined;
  if (typeof cell === 'boolean') return { value: cell };
  if (!(cell instanceof Date)) {
    const word = folded(text);
    if (TRUE_WORDS.has(word)) return { value: true };
    if (FALSE_WORDS.has(word)) return { value: false };
  }
  return fail(`${quote(text)} is not yes or no (write true/false, yes/no, sim/não, 1/0, or x for yes)`);
}

// ——— numbers ———

/** Digits grouped by thousands with `separator` (1.234.567, 1 234) → the bare digits; undefined when a group is not of three. */
function ungrouped(part: string, separator: string): string | undefined {
  const [first, ...rest] = part.split(separator);
  if (rest.length === 0) return /^\d*$/.test(first) ? first : undefined;
  return /^\d{1,3}$/.test(first) && rest.every((group) => /^\d{3}$/.test(group)) ? first + rest.join('') : undefined;
}

/** The decimal and the thousands separator of a number's digits (see parseNumberCell), or null when they cannot be told. */
function separatorsOf(body: string): { decimal?: string; thousands?: string } | null {
  const count = (s: string) => body.split(s).length - 1;
  const dots = count('.');
  const commas = count(',');
  let decimal: string | undefined;
  let thousands: string | undefined;
  if (dots > 0 && commas > 0) {
    decimal = body.lastIndexOf('.') > body.lastIndexOf(',') ? '.' : ',';
    thousands = decimal === '.' ? ',' : '.';
    if (count(decimal) > 1) return null;
  } else if (dots + commas === 1) {
    decimal = dots > 0 ? '.' : ',';
  } else if (dots + commas > 1) {
    thousands = dots > 0 ? '.' : ',';
  }
  if (body.includes(' ')) {
    if (thousands !== undefined) return null;
    thousands = ' ';
  }
  return { decimal, thousands };
}

/** The digits of a number with its separators as JavaScript writes them (1.234,5 → 1234.5), or undefined. */
function canonicalDigits(digits: string): string | undefined {
  const body = digits.replace(/\s+/g, ' ');
  const separators = separatorsOf(body);
  if (!separators) return undefined;
  const { decimal, thousands } = separators;
  const [whole, fraction] = decimal === undefined ? [body] : body.split(decimal);
  if (fraction !== undefined && !/^\d+$/.test(fraction)) return undefined;
  const integer = thousands === undefined ? (/^\d*$/.test(whole) ? whole : undefined) : ungrouped(whole, thousands);
  if (integer === undefined || (integer === '' && fraction === undefined)) return undefined;
  return fraction === undefined ? integer : `${integer || '0'}.${fraction}`;
}

/**
 * A number written in text (see parseNumberCell), or undefined when it is not one; `shift` moves
 * its decimal point left (2 for a percent), in the text so that 1.1 % is 0.011 exactly, not
 * 1.1 / 100 = 0.011000000000000001.
 */
function numberOfText(text: string, shift = 0): number | undefined {
  const match = /^([+\-\u2212]?)([\d\s.,]+?)(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!match) return undefined;
  const [, sign, digits, exponent] = match;
  const canonical = canonicalDigits(digits);
  if (canonical === undefined) return undefined;
  const n = Number(`${sign === '' || sign === '+' ? '' : '-'}${canonical}e${Number(exponent ?? 0) - shift}`);
  return Number.isFinite(n) ? n : undefined;
}

/** A percent written in text (15%, 15.0%, 15,5 %, -2,5%) as the fraction a spreadsheet computes with (0.15). */
function percentOfText(text: string): number | undefined {
  const match = /^(.*?)\s*%$/s.exec(text);
  return match ? numberOfText(match[1], 2) : undefined;
}

/** A currency symbol before an amount (R$ 3.20, -R$ 3,20, $1,234.50) or after it (3,20 €). */
const SYMBOL_FIRST = /^([+\-\u2212]?)(?:R\$|US\$|\$|€|£)\s*(.+)$/i;
const SYMBOL_LAST = /^(.+?)\s*(?:R\$|US\$|\$|€|£)$/i;

/**
 * The amount of a number shown through a currency format: the sheet holds 1234.5 and shows
 * R$ 1,234.50, which is what its CSV writes; the symbol is only how it is shown. Symbols only: a
 * word after a number (12 kg, 12 BRL) is not taken for a currency, so it stays refused.
 */
function amountOfText(text: string): number | undefined {
  const first = SYMBOL_FIRST.exec(text);
  if (first) return numberOfText(first[1] + first[2]);
  const last = SYMBOL_LAST.exec(text);
  return last ? numberOfText(last[1]) : undefined;
}

const NUMBER_HINT = 'write 12.5, 12,5 or 15%';

/**
 * A number cell as is (NaN and Infinity refused), or a number written as text: an optional sign,
 * digits with `,` or `.` as the decimal separator and the other (or spaces) as the thousands
 * separator, and an optional exponent: 12.5, 12,5, 1.234,56, 1,234.56, 1 234,56, -3, +3, 1e3.
 * With both `.` and `,` the last one is the decimal separator. A separator that appears once is
 * the decimal separator, so 1.234 and 1,234 are both 1.234 (Brazilian sheets write a decimal
 * comma); repeated, it separates thousands, each group of three digits (1,234,567 and 1.234.567).
 * A number followed by `%` is a percent, read as the fraction it stands for (15% and 15,0% are
 * 0.15): a cell formatted as a percent holds 0.15 and shows 15%, and a CSV of it writes `15%`. A
 * currency symbol before or after the number is dropped (R$ 1,234.50 is 1234.5), for the same
 * reason: a CSV writes a currency cell as it is shown.
 */
export function parseNumberCell(cell: Cell | undefined): Parsed<number> | undefined {
  const text = parseTextCell(cell);
  if (text === undefined) return undefined;
  if (typeof cell === 'number') {
    return Number.isFinite(cell) ? { value: cell } : fail(`${quote(text)} is not a number (${NUMBER_HINT})`);
  }
  const n = typeof cell === 'string' ? (numberOfText(text) ?? percentOfText(text) ?? amountOfText(text)) : undefined;
  return n === undefined ? fail(`${quote(text)} is not a number (${NUMBER_HINT})`) : { value: n };
}

// ——— dates ———

interface DateParts {
  year: number;
  month: number;
  day: number;
}

interface TimeParts {
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
  /** Minutes east of UTC; undefined when the text names no offset (taken as UTC). */
  offset?: number;
}

const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;

/** Whether a year, month and day name a day of the calendar (2024-02-30 does not). */
function isCalendarDate({ year, month, day }: DateParts): boolean {
  if (year < 1 || year > 9999 || month < 1 || month > 12 || day < 1) return false;
  const days = [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return day <= days;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** A date as `YYYY-MM-DD`. */
const isoDate = ({ year, month, day }: DateParts) => `${pad(year, 4)}-${pad(month)}-${pad(day)}`;

/** The milliseconds since the epoch of a UTC date and time (years below 100 kept as written). */
function utcMs(date: DateParts, time: Omit<TimeParts, 'offset'>): number {
  const d = new Date(0);
  d.setUTCFullYear(date.year, date.month - 1, date.day);
  d.setUTCHours(time.hour, time.minute, time.second, time.millisecond);
  return d.getTime();
}

/** A UTC instant's date parts. */
const partsOf = (date: Date): DateParts => ({
  year: date.getUTCFullYear(),
  month: date.getUTCMonth() + 1,
  day: date.getUTCDate(),
});

const TIME = String.raw`(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?`;
const ISO_TEXT = new RegExp(String.raw`^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:T|\s+)${TIME})?$`, 'i');
const DAY_FIRST_TEXT = new RegExp(String.raw`^(\d{1,2})([/.-])(\d{1,2})\2(\d{4})(?:(?:T|\s+)${TIME})?$`, 'i');
const SERIAL_TEXT = /^\d+(?:[.,]\d+)?$/;

/** An offset (`Z`, `-03:00`, `+0530`, `+01`) in minutes east of UTC, or null when out of range. */
function offsetMinutes(zone: string | undefined): number | undefined | null {
  if (zone === undefined) return undefined;
  if (zone.toUpperCase() === 'Z') return 0;
  const [, sign, hours, minutes = '0'] = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone) ?? [];
  if (Number(hours) > 23 || Number(minutes) > 59) return null;
  return (sign === '-' ? -1 : 1) * (Number(hours) * 60 + Number(minutes));
}

/** The time parts matched by TIME (a date-only text is midnight), or null when a part is out of range. */
function timeOf(groups: (string | undefined)[]): TimeParts | null {
  const [hour = '0', minute = '0', second = '0', fraction = '', zone] = groups;
  const offset = offsetMinutes(zone);
  const time = {
    hour: Number(hour),
    minute: Number(minute),
    second: Number(second),
    millisecond: Number(fraction.padEnd(3, '0').slice(0, 3)),
  };
  if (offset === null || time.hour > 23 || time.minute > 59 || time.second > 59) return null;
  return { ...time, offset };
}

/** A date written as text, ISO (2024-01-31) or day first (31/01/2024), with an optional time; null when not a real one. */
function dateTimeOfText(text: string): { date: DateParts; time: TimeParts } | null {
  const iso = ISO_TEXT.exec(text);
  const dayFirst = DAY_FIRST_TEXT.exec(text);
  let date: DateParts;
  let time: TimeParts | null;
  if (iso) {
    date = { year: Number(iso[1]), month: Number(iso[2]), day: Number(iso[3]) };
    time = timeOf(iso.slice(4));
  } else if (dayFirst) {
    date = { year: Number(dayFirst[4]), month: Number(dayFirst[3]), day: Number(dayFirst[1]) };
    time = timeOf(dayFirst.slice(5));
  } else {
    return null;
  }
  return isCalendarDate(date) && time ? { date, time } : null;
}

/**
 * The instant (UTC milliseconds) a spreadsheet serial names, in the 1900 date system: 1 is
 * 1900-01-01 and, past Excel's fictitious 1900-02-29 (60, refused), a serial is 1899-12-30 plus
 * that many days; the fraction is the time of day. Undefined when out of range (before 1, after 9999).
 */
function serialMs(serial: number): number | undefined {
  if (!Number.isFinite(serial) || serial < 1 || Math.floor(serial) === 60 || serial >= 2_958_466) return undefined;
  const epoch = Date.UTC(1899, 11, serial < 60 ? 31 : 30);
  return epoch + Math.floor(serial) * DAY_MS + Math.round((serial - Math.floor(serial)) * DAY_MS);
}

/** A serial written as text (45322 or 45322,5), or undefined. */
const serialOfText = (text: string): number | undefined =>
  SERIAL_TEXT.test(text) ? Number(text.replace(',', '.')) : undefined;

const DATE_HINT = 'write 2024-01-31 or 31/01/2024';

/**
 * A date, `YYYY-MM-DD`: a date cell's UTC date; a number as a spreadsheet serial (fraction
 * ignored); text as 2024-01-31 (a time after it ignored), day first as pt-BR writes it
 * (31/01/2024, 31-01-2024, 31.01.2024), or a serial (45322). The date must exist (not 2024-02-30).
 */
function parseDateCell(cell: Cell, text: string): Parsed<string> {
  const refused = fail(`${quote(text)} is not a date (${DATE_HINT})`);
  if (cell instanceof Date) return Number.isNaN(cell.getTime()) ? refused : { value: isoDate(partsOf(cell)) };
  const serial = typeof cell === 'number' ? cell : typeof cell === 'string' ? serialOfText(text) : undefined;
  if (serial !== undefined) {
    const ms = serialMs(Math.floor(serial));
    return ms === undefined ? refused : { value: isoDate(partsOf(new Date(ms))) };
  }
  const written = typeof cell === 'string' ? dateTimeOfText(text) : null;
  return written ? { value: isoDate(written.date) } : refused;
}

const DATETIME_HINT = 'write 2024-01-31 12:30, 2024-01-31T12:30:00Z or 31/01/2024 12:30';

/** An instant as ISO 8601 in UTC, or undefined when out of the years 1 to 9999. */
function isoInstant(ms: number): string | undefined {
  const date = new Date(ms);
  return Number.isNaN(ms) || !isCalendarDate(partsOf(date)) ? undefined : date.toISOString();
}

/**
 * The instant of a datetime written as text, in milliseconds, or undefined: with Z or an offset,
 * that instant; without one (or a serial), the wall time in `zone`.
 */
function instantOfText(text: string, zone: string): number | undefined {
  const serial = serialOfText(text);
  if (serial !== undefined) {
    const wall = serialMs(serial);
    return wall === undefined ? undefined : wallTimeToInstant(wall, zone);
  }
  const written = dateTimeOfText(text);
  if (!written) return undefined;
  const { date, time } = written;
  const wall = utcMs(date, time);
  return time.offset === undefined ? wallTimeToInstant(wall, zone) : wall - time.offset * 60_000;
}

/**
 * A date and time, ISO 8601 in UTC (`2024-01-31T12:30:00.000Z`). What a spreadsheet holds without
 * a zone is a wall time in `zone` (the import's `time_zone`, or the one its column's header names):
 * a date cell, a number (a spreadsheet serial whose fraction is the time of day), text without an
 * offset (2024-01-31 12:30, 2024-01-31T12:30:15, day first 31/01/2024 12:30; a date alone is
 * midnight). Text with Z or an offset names its instant itself.
 */
function parseDateTimeCell(cell: Cell, text: string, zone: string): Parsed<string> {
  let ms: number | undefined;
  if (cell instanceof Date) ms = Number.isNaN(cell.getTime()) ? undefined : wallTimeToInstant(cell.getTime(), zone);
  else if (typeof cell === 'number') {
    const wall = serialMs(cell);
    ms = wall === undefined ? undefined : wallTimeToInstant(wall, zone);
  } else if (typeof cell === 'string') ms = instantOfText(text, zone);
  const iso = ms === undefined ? undefined : isoInstant(ms);
  return iso === undefined ? fail(`${quote(text)} is not a date and time (${DATETIME_HINT})`) : { value: iso };
}

// ——— options ———

type Option = { value: string; label?: string };

/** The value of the option a text names: its value exactly, else its value or its label ignoring case. */
function matchOption(text: string, options: readonly Option[]): string | undefined {
  const lower = text.toLowerCase();
  return (
    options.find((o) => o.value === text) ??
    options.find((o) => o.value.toLowerCase() === lower) ??
    options.find((o) => o.label !== undefined && o.label.trim().toLowerCase() === lower)
  )?.value;
}

/**
 * The options an error lists: up to ten values, then `…`. An option comes once per label (every
 * language of it can name it), so its value is listed once.
 */
function listedOptions(options: readonly Option[]): string {
  const values = [...new Set(options.map((o) => o.value))];
  if (values.length === 0) return 'it has no options';
  const shown = values.slice(0, OPTIONS_LISTED).map((v) => quote(v, OPTION_MAX));
  return `one of ${shown.join(', ')}${values.length > OPTIONS_LISTED ? ', …' : ''}`;
}

/** A select cell: the value of the option it names (see matchOption). */
function parseSelectCell(text: string, attribute: CellAttribute): Parsed<string> {
  const options = attribute.options ?? [];
  const value = matchOption(text, options);
  if (value !== undefined) return { value };
  return fail(`${quote(text)} is not an option of ${attribute.key} (${listedOptions(options)})`);
}

/**
 * A multiselect cell: its items (splitList) each named as a select option, repeats dropped, order
 * kept. A cell that splits into unknown items but names one option whole (an option value with a
 * comma, such as `Red, dark`) is that option.
 */
function parseMultiselectCell(cell: Cell, text: string, attribute: CellAttribute): Parsed<string[]> {
  const options = attribute.options ?? [];
  const items = splitList(cell);
  const matched = items.map((item) => matchOption(item, options));
  const unknown = items.filter((_, i) => matched[i] === undefined);
  if (unknown.length === 0) return { value: [...new Set(matched as string[])] };
  const whole = matchOption(text, options);
  if (whole !== undefined) return { value: [whole] };
  const named = unknown.map((item) => quote(item, OPTION_MAX)).join(', ');
  const verb = unknown.length === 1 ? 'is not an option' : 'are not options';
  return fail(`${named} ${verb} of ${attribute.key} (${listedOptions(options)})`);
}

// ——— prices and measures ———

/** Currency symbols and the codes they stand for. */
const CURRENCY_SYMBOLS: Record<string, string> = { R$: 'BRL', US$: 'USD', $: 'USD', '€': 'EUR', '£': 'GBP' };
const CURRENCY = String.raw`(R\$|US\$|\$|€|£|[A-Za-z]{3})`;
const CURRENCY_FIRST = new RegExp(String.raw`^${CURRENCY}\s*(.+)$`, 'i');
const CURRENCY_LAST = new RegExp(String.raw`^(.+?)\s*${CURRENCY}$`, 'i');

/** A currency code from a code or a symbol (r$ → BRL, usd → USD). */
const currencyCode = (written: string) => CURRENCY_SYMBOLS[written.toUpperCase()] ?? written.toUpperCase();

/** The amount and currency written in a price text (12.50 BRL, BRL 12.50, R$ 12,50), or the amount alone. */
function priceOfText(text: string): { amount: number; currency?: string } | undefined {
  const amount = numberOfText(text);
  if (amount !== undefined) return { amount };
  for (const [pattern, amountAt, currencyAt] of [
    [CURRENCY_FIRST, 2, 1],
    [CURRENCY_LAST, 1, 2],
  ] as const) {
    const match = pattern.exec(text);
    const n = match ? numberOfText(match[amountAt]) : undefined;
    if (match && n !== undefined) return { amount: n, currency: currencyCode(match[currencyAt]) };
  }
  return undefined;
}

/**
 * A price `{amount, currency}`: 12.50 BRL, BRL 12.50, 12,50 BRL, R$ 12,50 (R$ → BRL, US$ and $ →
 * USD, € → EUR, £ → GBP; codes upper-cased), the amount read as parseNumberCell reads it. A number,
 * or an amount without a currency, is in the attribute's currency when it has exactly one.
 */
function parsePriceCell(cell: Cell, text: string, config: TypeConfig): Parsed<{ amount: number; currency: string }> {
  let price: { amount: number; currency?: string } | undefined;
  if (typeof cell === 'number') price = Number.isFinite(cell) ? { amount: cell } : undefined;
  else if (typeof cell === 'string') price = priceOfText(text);
  if (price === undefined) return fail(`${quote(text)} is not a price (write 12.50 BRL or R$ 12,50)`);
  const currencies = config.currencies ?? [];
  const currency = price.currency ?? (currencies.length === 1 ? currencies[0] : undefined);
  if (currency === undefined) {
    const example = quote(`${text} ${currencies[0] ?? 'BRL'}`);
    return fail(`${quote(text)} has no currency (write it after the amount, as in ${example})`);
  }
  return { value: { amount: price.amount, currency } };
}

/** The unit of `units` a text ends with (ignoring case, longest first) and the number before it; undefined when none fits. */
function measureOfText(text: string, units: readonly string[]): { amount: number; unit: string } | undefined {
  const lower = text.toLowerCase();
  const longestFirst = [...units].sort((a, b) => b.length - a.length);
  for (const unit of longestFirst) {
    if (!lower.endsWith(unit.toLowerCase())) continue;
    const amount = numberOfText(text.slice(0, text.length - unit.length));
    if (amount !== undefined) return { amount, unit };
  }
  return undefined;
}

/** A number followed by a word: the unit a measure is written in, whether or not the attribute has it. */
const NUMBER_THEN_UNIT = /^([+\-\u2212]?[\d\s.,]*\d(?:[eE][+-]?\d+)?)\s*(\S.*)$/;

/**
 * A measure `{amount, unit}`: 3 kg, 3kg, 3,5 kg, the unit one of the attribute's units ignoring
 * case and returned as the attribute writes it (3 KG → kg); a number alone is in the attribute's
 * unit when it has exactly one.
 */
function parseMetricCell(cell: Cell, text: string, attribute: CellAttribute): Parsed<{ amount: number; unit: string }> {
  const units = attribute.type_config?.units ?? [];
  const listed = units.length === 0 ? 'it has no units' : `one of ${units.join(', ')}`;
  let amount: number | undefined;
  if (typeof cell === 'number') amount = Number.isFinite(cell) ? cell : undefined;
  else if (typeof cell === 'string') amount = numberOfText(text);
  if (amount !== undefined && units.length === 1) return { value: { amount, unit: units[0] } };
  if (amount !== undefined) {
    const example = quote(`${text} ${units[0] ?? 'kg'}`);
    return fail(`${quote(text)} has no unit (write it after the number, as in ${example}; ${listed})`);
  }
  const measure = typeof cell === 'string' ? measureOfText(text, units) : undefined;
  if (measure) return { value: measure };
  const written = typeof cell === 'string' ? NUMBER_THEN_UNIT.exec(text) : null;
  if (written && numberOfText(written[1]) !== undefined) {
    return fail(`${quote(text)}: ${quote(written[2], OPTION_MAX)} is not a unit of ${attribute.key} (${listed})`);
  }
  return fail(`${quote(text)} is not a measure (write 3.5 ${units[0] ?? 'kg'}; ${listed})`);
}

/** Types whose value is a number, a yes/no, a date or an amount: they read the number behind a formatted cell. */
const NUMBER_TYPES: ReadonlySet<AttributeType> = new Set(['number', 'boolean', 'date', 'datetime', 'price', 'metric']);

/**
 * An attribute cell's value by the attribute's type (see each type's parser); undefined for an
 * empty cell (set nothing). `formattedNumber` is the number behind a cell that holds the text a
 * number format shows (SheetRow.formattedNumbers): text types and options read the text as the
 * sheet shows it (`00123`, `01310-100`), NUMBER_TYPES that number (123, 1310100). `timeZone` (IANA)
 * is where a date-time without an offset was written (UTC unless told).
 */
export function parseAttributeCell(
  shownCell: Cell | undefined,
  attribute: CellAttribute,
  formattedNumber?: number,
  timeZone: string = UTC,
): Parsed<unknown> | undefined {
  const cell = formattedNumber !== undefined && NUMBER_TYPES.has(attribute.type) ? formattedNumber : shownCell;
  if (isEmptyCell(cell)) return undefined;
  const text = parseTextCell(cell);
  if (text === undefined || cell === undefined || cell === null) return undefined;
  const config = attribute.type_config ?? {};
  switch (attribute.type) {
    case 'number':
      return parseNumberCell(cell);
    case 'boolean':
      return parseBooleanCell(cell);
    case 'date':
      return parseDateCell(cell, text);
    case 'datetime':
      return parseDateTimeCell(cell, text, timeZone);
    case 'select':
      return parseSelectCell(text, attribute);
    case 'multiselect':
      return splitList(cell).length === 0 ? undefined : parseMultiselectCell(cell, text, attribute);
    case 'price':
      return parsePriceCell(cell, text, config);
    case 'metric':
      return parseMetricCell(cell, text, attribute);
    default:
      // text, textarea, url, email, image, file (a localizable text is one cell per language) and any unknown type.
      return { value: text };
  }
}
