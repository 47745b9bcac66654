import { joinList, type Cell, type WriteCell } from '@pim/sheets';
import type { ImportAttribute } from '../links/catalog.link';

// How stored values become cells, so that the file reads well and an import of it stores the
// same values again: lists joined with `|` (a separator inside an item, a code such as `A|B`,
// escaped with a backslash: see joinList), prices as `12.50 BRL`, measures as `3 kg`, dates as
// date cells, date-times as instants the writer shows in the export's time zone (ISO 8601 with
// its offset in a CSV), booleans and numbers as themselves.

/** What a value could not become: counted as a field that failed. */
export interface Failures {
  fields: number;
}

/** The separator of list cells (categories, tags, images, multiselect values): what an import splits on first. */
export const LIST_SEPARATOR = '|';

/** The first language of a text per language, in alphabetical order of language codes (names are written in it). */
export function firstText(text: Record<string, string> | undefined): string | null {
  if (!text) return null;
  const language = Object.keys(text).sort()[0];
  return language === undefined ? null : text[language];
}

/** An amount with at least the two decimals of money (12.5 → 12.50), never rounded. */
export function moneyAmount(amount: number): string {
  const cents = amount * 100;
  return Math.abs(cents - Math.round(cents)) < 1e-9 ? amount.toFixed(2) : String(amount);
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/;

/**
 * A stored date (`2024-01-31`) as a date cell (midnight UTC, written as the date alone), so an XLSX
 * file sorts and filters it as a date. A text that names no day of the calendar stays text.
 */
export function dateCell(text: string): Cell {
  if (!ISO_DATE.test(text)) return text;
  const date = new Date(`${text}T00:00:00.000Z`);
  // Date would roll 2024-02-30 over into March: only a day that reads back the same is a date.
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text) ? date : text;
}

/**
 * A stored date-time (ISO 8601 with its offset) as an instant, which the writer shows in the
 * export's time zone; a text that is no instant stays text.
 */
export function instantCell(text: string): WriteCell {
  const ms = ISO_DATE_TIME.test(text) ? Date.parse(text) : NaN;
  return Number.isNaN(ms) ? text : { instant: new Date(ms) };
}

/** A value of no known attribute (one deleted meanwhile), written as plainly as it allows. */
function plainValue(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) return joinList(value.map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v))));
  return JSON.stringify(value);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The cell of one attribute value (of one language, for a localizable text), or null when it has none. */
function typedCell(value: unknown, attribute: ImportAttribute): WriteCell | undefined {
  switch (attribute.type) {
    case 'text':
    case 'textarea':
    case 'url':
    case 'email':
    case 'image':
    case 'file':
    case 'select':
      return typeof value === 'string' ? value : undefined;
    case 'date':
      return typeof value === 'string' ? dateCell(value) : undefined;
    case 'datetime':
      return typeof value === 'string' ? instantCell(value) : undefined;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
    case 'boolean':
      return typeof value === 'boolean' ? value : undefined;
    case 'multiselect':
      return Array.isArray(value) && value.every((v) => typeof v === 'string') ? joinList(value) : undefined;
    case 'price':
      return isRecord(value) && typeof value.amount === 'number' && typeof value.currency === 'string'
        ? `${moneyAmount(value.amount)} ${value.currency}`
        : undefined;
    case 'metric':
      return isRecord(value) && typeof value.amount === 'number' && typeof value.unit === 'string'
        ? `${value.amount} ${value.unit}`
        : undefined;
    default:
      return undefined;
  }
}

/**
 * The cell of an attribute's stored value: typed by the attribute (see above); a localizable
 * text in `language`, or — with no language — every language as `pt-BR: text` lines joined by
 * ` | `. A value that does not fit its attribute's type is left empty and counted.
 */
export function attributeCell(
  value: unknown,
  attribute: ImportAttribute | undefined,
  language: string | undefined,
  fail: Failures,
): WriteCell {
  if (value === null || value === undefined) return null;
  if (!attribute) return plainValue(value);
  if (attribute.localizable && isRecord(value)) {
    if (language !== undefined)
      return value[language] === undefined ? null : cellOrFail(value[language], attribute, fail);
    return Object.keys(value)
      .sort()
      .map((l) => `${l}: ${String(value[l])}`)
      .join(' | ');
  }
  return cellOrFail(value, attribute, fail);
}

function cellOrFail(value: unknown, attribute: ImportAttribute, fail: Failures): WriteCell {
  const cell = typedCell(value, attribute);
  if (cell !== undefined) return cell;
  fail.fields += 1;
  return null;
}

/** The most characters an XLSX cell holds; a longer text is cut there (and counted). */
export const XLSX_CELL_MAX = 32_767;

/** Cuts texts longer than a spreadsheet cell holds (XLSX), counting each cut. */
export function fitCells(cells: WriteCell[], fail: Failures): WriteCell[] {
  for (let i = 0; i < cells.length; i++) {
    const c = cells[i];
    if (typeof c === 'string' && c.length > XLSX_CELL_MAX) {
      cells[i] = c.slice(0, XLSX_CELL_MAX);
      fail.fields += 1;
    }
  }
  return cells;
}
