import type { Readable } from 'node:stream';
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
}

interface ExcelRow {
  number: number;
  values: unknown[];
}

interface WorksheetReader extends AsyncIterable<ExcelRow> {
  id: number | string;
  name: string;
  iterator: AsyncIterable<Buffer | string>;
}

interface WorkbookReader extends AsyncIterable<WorksheetReader> {
  model?: { sheets?: { id: number | string; name: string }[] };
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
  try {
    for await (const sheet of workbook) {
      facts.worksheets = (workbook.model?.sheets ?? []).map((s) => ({ id: String(s.id), name: s.name }));
      const id = String(sheet.id);
      if (worksheetId !== undefined && id !== worksheetId) {
        // Read through, nothing yielded: exceljs spools some sheets to temporary files and deletes
        // each as soon as the next is asked for, so a sheet left unread would open its file after
        // it is gone (ENOENT, at random under load).
        for await (const skipped of sheet) void skipped;
        continue;
      }
      const merges: MergedRange[] = [];
      sheet.iterator = noteMerges(sheet.iterator, merges);
      let any = false;
      for await (const row of sheet) {
        const cells = row.values.slice(1).map(plainCell);
        let last = cells.length - 1;
        while (last >= 0 && cells[last] === null) last--;
        if (last < 0) continue;
        if (!any) {
          any = true;
          facts.worksheet = { id, name: sheet.name };
        }
        cells.length = last + 1;
        yield { number: row.number, cells };
      }
      if (any || worksheetId !== undefined) {
        facts.worksheet ??= { id, name: sheet.name };
        facts.merges = merges;
        break; // the rest of the workbook is not needed
      }
    }
  } finally {
    stream.destroy();
  }
}
