import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { columnIndex, type Cell, type SheetRow } from './cells';
import { exceljs } from './exceljs';

/** A worksheet of a workbook: its id (the workbook's sheet id) and name. */
export interface Worksheet {
  id: string;
  name: string;
}

/** A merged range of cells: rows and column indexes (0 = A), inclusive. */
export interface MergedRange {
  top: number;
  left: number;
  bottom: number;
  right: number;
}

/** What `xlsxRows` learns besides the rows: the workbook's worksheets and the read worksheet's merged ranges. */
export interface XlsxFacts {
  worksheets: Worksheet[];
  merges: MergedRange[];
  /** The worksheet read (the one asked for, or the first one holding a cell). */
  worksheet?: Worksheet;
  /**
   * Read every worksheet in turn, in one pass (`worksheetId` is then not used): while a worksheet's
   * rows come, `worksheet` names it and `merges` is its own list (whole once its rows are read).
   */
  every?: boolean;
}

interface ExcelRow {
  number: number;
  values: unknown[];
  getCell(column: number): { numFmt?: string };
}

interface WorksheetReader extends AsyncIterable<ExcelRow> {
  id: number | string;
  name: string;
  iterator: AsyncIterable<Buffer | string>;
}

interface WorkbookReader extends AsyncIterable<WorksheetReader> {
  model?: { sheets?: { id: number | string; name: string }[] };
  _parseSharedStrings(entry: NodeJS.ReadableStream): AsyncGenerator<unknown>;
}

/** An exceljs cell value as a plain cell: a formula's cached result, rich text joined, errors empty. */
export function plainCell(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string':
      return value === '' ? null : value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'boolean':
      return value;
    case 'object': {
      if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value;
      const v = value as { result?: unknown; richText?: { text: string }[]; text?: unknown; error?: unknown };
      if ('formula' in v || 'sharedFormula' in v) return plainCell(v.result);
      if (Array.isArray(v.richText)) return plainCell(v.richText.map((r) => r.text).join(''));
      if ('error' in v) return null;
      if ('text' in v) return plainCell(v.text);
      return null;
    }
    default:
      return null;
  }
}

const REF = /^([A-Z]{1,3})(\d+):([A-Z]{1,3})(\d+)$/;
const MERGE = /<(?:\w+:)?mergeCell\s[^>]*?ref="([A-Z]{1,3}\d+:[A-Z]{1,3}\d+)"/g;

/** A merged range from its reference (`B3:D3`). */
function rangeOf(ref: string): MergedRange | undefined {
  const m = REF.exec(ref);
  if (!m) return undefined;
  return { top: Number(m[2]), left: columnIndex(m[1]), bottom: Number(m[4]), right: columnIndex(m[3]) };
}

/**
 * Passes a worksheet's XML through unchanged while noting its `<mergeCell ref="…">` elements
 * (exceljs's streaming reader does not report them; they follow the rows, so they are known once
 * the rows have been read). Only chunks that may hold one are searched.
 */
async function* noteMerges(
  xml: AsyncIterable<Buffer | string>,
  merges: MergedRange[],
): AsyncGenerator<Buffer | string> {
  let tail = '';
  for await (const chunk of xml) {
    const text = typeof chunk === 'string' ? chunk : chunk.toString('latin1');
    if (text.includes('ergeCell') || tail !== '') {
      const window = tail + text;
      let last = 0;
      for (const m of window.matchAll(MERGE)) {
        const r = rangeOf(m[1]);
        if (r) merges.push(r);
        last = m.index + m[0].length;
      }
      // Keep an unfinished element for the next chunk.
      const open = window.lastIndexOf('<', window.length);
      tail = open >= last && window.length - open < 200 && !window.slice(open).includes('>') ? window.slice(open) : '';
    }
    yield chunk;
  }
}

// ——— formulas: their cached results ———
//
// exceljs 4.4's streaming reader loses formula results: it keeps `{formula, result}` only when the
// result is truthy (FormulaValue._copyModel copies `if (value)`), so a cached 0, FALSE or "" reads
// as an empty cell, and it parses every result but a string as a number (`parseFloat`), so TRUE is
// 1, an error is NaN and a date result is a serial. An empty cell sets nothing, so a row of `=1-1`
// was stored with its old value kept and no word said.
//
// The fix here: a formula cell's `<f>` element is dropped from the worksheet's XML before exceljs
// parses it. What is left (`<c r="B2" t="b"><v>0</v></c>`) is a plain cell holding the cached
// result with the type the writing program gave it, which exceljs reads right: t="b" a boolean,
// t="str" a string, t="e" an error, a number a number (a date in a date-formatted cell). Nothing
// here reads formulas; their text is not needed.
//
// The upstream fix: in lib/stream/xlsx/worksheet-reader.js, read a formula's `<v>` by its `t` as
// the non-streaming reader's lib/xlsx/xform/sheet/cell-xform.js does (`b` → boolean, `str` →
// decoded text, `e` → {error}, else a number, a Date under a date format); in lib/doc/cell.js, make
// FormulaValue._copyModel copy a key whose value is not undefined instead of one that is truthy
// (it also hides a cached 0, FALSE or "" from `cell.value` in the non-streaming reader).

/**
 * A formula element: `<f>1-1</f>`, `<f t="shared" ref="B2:B9" si="0">A2*2</f>`, `<f t="shared" si="0"/>`
 * (its text holds no `<`: XML escapes it).
 */
const FORMULA = /<f(?:\s[^>]*)?(?:\/>|>[^<]*<\/f\s*>)/g;

/** A formula element held back past this many characters is let through as it is (it never ends: malformed XML). */
const HELD_MAX = 1 << 20;

/** Where the part of `xml` that a later chunk may still change begins: an unfinished `<f` element or a trailing `<`. */
function unfinishedAt(xml: string): number {
  let i = xml.lastIndexOf('<f');
  while (i !== -1 && xml.length - i <= HELD_MAX) {
    const next = xml.charAt(i + 2);
    // Complete formula elements are gone already, so one that starts here has not ended yet.
    if (next === '' || next === '>' || next === '/' || /\s/.test(next)) return i;
    i = i === 0 ? -1 : xml.lastIndexOf('<f', i - 1);
  }
  return xml.endsWith('<') ? xml.length - 1 : xml.length;
}

/**
 * A worksheet's XML with every formula element dropped, so each formula cell is read as its cached
 * result (see above). Chunks are decoded as one UTF-8 stream: exceljs decodes each Buffer apart,
 * and a character cut between two chunks (an `ç` of `Pão`) would read as two U+FFFD.
 */
export async function* cachedResults(xml: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let held = '';
  for await (const chunk of xml) {
    const text = (held + (typeof chunk === 'string' ? chunk : decoder.write(chunk))).replace(FORMULA, '');
    const cut = unfinishedAt(text);
    held = text.slice(cut);
    if (cut > 0) yield text.slice(0, cut);
  }
  const rest = (held + decoder.end()).replace(FORMULA, '');
  if (rest !== '') yield rest;
}

/**
 * Has exceljs read the workbook's shared strings as one UTF-8 stream: it decodes each chunk of
 * `sharedStrings.xml` apart, and a character cut between two chunks would read as two U+FFFD (about
 * one cell in 20,000 of Portuguese text). A readable stream with an encoding gives whole characters.
 */
function decodeSharedStringsWhole(workbook: WorkbookReader): void {
  const parse = workbook._parseSharedStrings;
  if (typeof parse !== 'function') return; // another exceljs: its own reading stays
  workbook._parseSharedStrings = function (entry) {
    entry.setEncoding('utf8');
    return parse.call(this, entry);
  };
}

// ——— number formats: the text a number is shown as ———

/** Characters a number format shows as they are without quotes (Excel's list). */
const BARE_LITERALS = new Set([..."$-+/():!^&'~{}<>= "]);
/** `[Red]`, `[Color12]`: colors, which change nothing in the text. */
const COLOR = /^(?:black|blue|cyan|green|magenta|red|white|yellow|colou?r\s*\d+)$/i;
/** `[$R$-416]`, `[$-416]`: a currency symbol (shown) and a locale (not). */
const CURRENCY_LOCALE = /^\$([^-]*)(?:-[0-9a-f]+)?$/i;

type FormatToken = { digit: '0' | '#' } | { literal: string };

/**
 * A format code's sections (`positive;negative;zero;text`), split on `;` outside quotes, brackets
 * and escapes; undefined when a quote or a bracket is not closed.
 */
function sectionsOf(format: string): string[] | undefined {
  const sections: string[] = [];
  let start = 0;
  for (let i = 0; i < format.length; i++) {
    const ch = format[i];
    if (ch === '"' || ch === '[') {
      i = format.indexOf(ch === '"' ? '"' : ']', i + 1);
      if (i === -1) return undefined;
    } else if (ch === '\\') i++;
    else if (ch === ';') {
      sections.push(format.slice(start, i));
      start = i + 1;
    }
  }
  sections.push(format.slice(start));
  return sections;
}

/**
 * A section made only of digit placeholders (`0` shows a digit or 0, `#` a digit or nothing) and
 * literal text; undefined for anything else (decimals, thousands, percent, exponent, fractions,
 * dates, `@`, `General`, conditions), which this does not render.
 */
function tokensOf(section: string): FormatToken[] | undefined {
  const tokens: FormatToken[] = [];
  for (let i = 0; i < section.length; i++) {
    const ch = section[i];
    if (ch === '0' || ch === '#') tokens.push({ digit: ch });
    else if (ch === '"') {
      const end = section.indexOf('"', i + 1);
      tokens.push({ literal: section.slice(i + 1, end) });
      i = end;
    } else if (ch === '\\' && i + 1 < section.length) tokens.push({ literal: section[++i] });
    else if (ch === '[') {
      const end = section.indexOf(']', i);
      const inside = section.slice(i + 1, end);
      const currency = CURRENCY_LOCALE.exec(inside);
      if (currency) tokens.push({ literal: currency[1] });
      else if (!COLOR.test(inside)) return undefined;
      i = end;
    } else if (BARE_LITERALS.has(ch)) tokens.push({ literal: ch });
    else return undefined;
  }
  return tokens;
}

/**
 * Digits laid into a section's placeholders from the right, the leftmost placeholder taking every
 * digit left over (`000-000` shows 1234567 as `1234-567`). 0 has no digits: a `#` shows nothing for it.
 */
function laidOut(tokens: FormatToken[], digits: string): string {
  let places = tokens.filter((t) => 'digit' in t).length;
  let left = digits.length;
  let text = '';
  for (let t = tokens.length - 1; t >= 0; t--) {
    const token = tokens[t];
    if ('literal' in token) {
      text = token.literal + text;
      continue;
    }
    const blank = token.digit === '0' ? '0' : '';
    const taken = --places === 0 ? digits.slice(0, left) : left > 0 ? digits[left - 1] : '';
    left = places === 0 ? 0 : Math.max(0, left - 1);
    text = (taken || blank) + text;
  }
  return text;
}

/**
 * The text a number format shows for a whole number when it differs from the number's own digits:
 * zero padding and literal text (`00000` → `00123`, `00000-000` → `01310-100`, `"SKU "0000` →
 * `SKU 0042`; a negative number with one section gets its `-`, with two the second section). Undefined
 * for a number shown as itself, for a fraction, and for any other format (General, `@` which shows a
 * number as General, decimals, thousands, percent…): the caller keeps the number.
 */
export function formattedInteger(value: number, format: string | undefined): string | undefined {
  if (!format || !Number.isSafeInteger(value)) return undefined;
  const sections = sectionsOf(format);
  if (!sections) return undefined;
  let section = sections[0];
  let sign = '';
  if (value < 0 && sections.length > 1) section = sections[1];
  else if (value < 0) sign = '-';
  else if (value === 0 && sections.length > 2) section = sections[2];
  const tokens = tokensOf(section);
  if (!tokens) return undefined;
  const abs = Math.abs(value);
  const text = sign + laidOut(tokens, abs === 0 ? '' : String(abs));
  // Shown as nothing, a cell would read as empty (set nothing): the number is kept instead.
  return text === '' || text === String(value) ? undefined : text;
}

/**
 * A row's cells as plain cells, a whole number whose format pads it or adds text (`00123`) as that
 * text, with the number kept in `formattedNumbers` at its index (number targets read it).
 */
function rowCells(row: ExcelRow): Pick<SheetRow, 'cells' | 'formattedNumbers'> {
  const { values } = row;
  const cells: Cell[] = [];
  let formattedNumbers: (number | undefined)[] | undefined;
  for (let column = 1; column < values.length; column++) {
    const cell = plainCell(values[column]);
    const shown = typeof cell === 'number' ? formattedInteger(cell, row.getCell(column).numFmt) : undefined;
    if (shown === undefined) {
      cells.push(cell);
      continue;
    }
    cells.push(shown);
    (formattedNumbers ??= [])[column - 1] = cell as number;
  }
  return formattedNumbers ? { cells, formattedNumbers } : { cells };
}

const READER_OPTIONS = {
  worksheets: 'emit',
  sharedStrings: 'cache',
  hyperlinks: 'ignore',
  // Styles tell a date cell from a number.
  styles: 'cache',
  entries: 'ignore',
} as const;

/**
 * The non-empty rows of one worksheet of an XLSX workbook, streamed (exceljs's streaming reader:
 * never the whole workbook in memory). `worksheetId` picks the worksheet; without it, the first
 * worksheet (in the workbook's order of those streamed) that holds a cell is read. `facts` is filled as
 * reading goes: the worksheets once the workbook part is read, the merges once the rows are.
 */
export async function* xlsxRows(
  stream: Readable,
  worksheetId: string | undefined,
  facts: XlsxFacts = { worksheets: [], merges: [] },
): AsyncGenerator<SheetRow> {
  const workbook = new (
    exceljs().stream.xlsx.WorkbookReader as unknown as new (input: Readable, options: object) => WorkbookReader
  )(stream, READER_OPTIONS);
  decodeSharedStringsWhole(workbook);
  try {
    for await (const sheet of workbook) {
      facts.worksheets = (workbook.model?.sheets ?? []).map((s) => ({ id: String(s.id), name: s.name }));
      const id = String(sheet.id);
      if (!facts.every && worksheetId !== undefined && id !== worksheetId) {
        // Read through, nothing yielded: exceljs spools some sheets to temporary files and deletes
        // each as soon as the next is asked for, so a sheet left unread would open its file after
        // it is gone (ENOENT, at random under load).
        for await (const skipped of sheet) void skipped;
        continue;
      }
      const merges: MergedRange[] = [];
      sheet.iterator = noteMerges(cachedResults(sheet.iterator), merges);
      if (facts.every) Object.assign(facts, { worksheet: { id, name: sheet.name }, merges });
      let any = false;
      for await (const row of sheet) {
        const { cells, formattedNumbers } = rowCells(row);
        let last = cells.length - 1;
        while (last >= 0 && cells[last] === null) last--;
        if (last < 0) continue;
        if (!any) {
          any = true;
          facts.worksheet = { id, name: sheet.name };
        }
        cells.length = last + 1;
        yield formattedNumbers ? { number: row.number, cells, formattedNumbers } : { number: row.number, cells };
      }
      if (!facts.every && (any || worksheetId !== undefined)) {
        facts.worksheet ??= { id, name: sheet.name };
        facts.merges = merges;
        break; // the rest of the workbook is not needed
      }
    }
  } finally {
    stream.destroy();
  }
}
