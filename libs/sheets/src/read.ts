import type { Readable } from 'node:stream';
import { ValidationError } from '@pim/errors';
import { columnName, isEmptyCell, type Cell, type SheetRow } from './cells';
import { csvRows, sniffCsv } from './csv';
import type { SheetFormat } from './detect';
import { xlsxRows, type MergedRange, type Worksheet, type XlsxFacts } from './xlsx';

/** A stored spreadsheet as the readers open it: anew for every read. */
export interface SheetSource {
  format: SheetFormat;
  fileName?: string;
  open(): Promise<Readable>;
}

/** A column of the header row: its letters and its text. */
export interface SheetHeader {
  column: string;
  label: string;
}

/** What an upload shows of a sheet: its worksheets, the one read, its header row and headers, and its counts. */
export interface SheetSummary {
  worksheets: Worksheet[];
  worksheet: Worksheet;
  /** The header row's number (1 = first row). */
  header_row: number;
  headers: SheetHeader[];
  columns_count: number;
  /** Non-empty rows below the header row. */
  rows_count: number;
}

/** The one worksheet of a CSV file. */
export const CSV_WORKSHEET_ID = '1';

const csvWorksheet = (fileName?: string): Worksheet => ({
  id: CSV_WORKSHEET_ID,
  name: (fileName ?? '').replace(/\.[^.]*$/, '').slice(0, 200) || 'Sheet1',
});

/** Rows looked at to find the header row. */
const HEADER_SCAN_ROWS = 20;

/**
 * The non-empty rows of a worksheet from `fromRow` on (all of them by default), streamed. A CSV
 * has one worksheet (`CSV_WORKSHEET_ID`); an XLSX worksheet is named by its id.
 */
export async function* readRows(
  source: SheetSource,
  worksheetId: string | undefined,
  opts: { fromRow?: number; facts?: XlsxFacts } = {},
): AsyncGenerator<SheetRow> {
  const from = opts.fromRow ?? 1;
  if (source.format === 'csv') {
    const dialect = await sniffCsv(source.open);
    for await (const row of csvRows(await source.open(), dialect)) {
      if (row.number < from || row.cells.every(isEmptyCell)) continue;
      yield row;
    }
    return;
  }
  for await (const row of xlsxRows(await source.open(), worksheetId, opts.facts)) {
    if (row.number < from || row.cells.every(isEmptyCell)) continue;
    yield row;
  }
}

const filled = (row: SheetRow) => row.cells.filter((c) => !isEmptyCell(c));

/**
 * The header row among the first rows: the first whose cells are all text and that fills at least
 * 60 % of the widest row's cells (and two cells when any row has two) — a title or a note above the
 * headers is passed over. Without such a row, the first one.
 */
export function detectHeaderRow(rows: SheetRow[]): number | undefined {
  if (rows.length === 0) return undefined;
  const widest = Math.max(...rows.map((r) => filled(r).length));
  const needed = Math.max(Math.min(2, widest), Math.ceil(widest * 0.6));
  const header = rows.find((r) => {
    const cells = filled(r);
    return cells.length >= needed && cells.every((c) => typeof c === 'string');
  });
  return (header ?? rows[0]).number;
}

/** Text of a header cell. */
const labelOf = (cell: Cell | undefined): string => {
  if (isEmptyCell(cell)) return '';
  if (cell instanceof Date) return cell.toISOString().slice(0, 10);
  return String(cell).replace(/\s+/g, ' ').trim().slice(0, 1_000);
};

/**
 * The header row's columns with a label. A cell covered by a merged range takes the label of the
 * range's first cell (a header merged over B:D names B, C and D); a column with no label is left out.
 */
export function headersOf(row: SheetRow, merges: MergedRange[]): SheetHeader[] {
  const labels = row.cells.map(labelOf);
  for (const m of merges) {
    if (row.number < m.top || row.number > m.bottom) continue;
    const label = m.top === row.number ? labels[m.left] : '';
    for (let c = m.left; c <= m.right; c++) if (!labels[c]) labels[c] = label ?? '';
  }
  return labels.flatMap((label, i) => (label ? [{ column: columnName(i), label }] : []));
}

/**
 * Reads a worksheet whole (streamed) for what an upload shows: the workbook's worksheets, the
 * header row (the one asked for, or detected), its headers and the number of non-empty rows below it.
 * A worksheet that is not there or a header row past the last row is a 400.
 */
export async function inspectSheet(
  source: SheetSource,
  opts: { worksheetId?: string; headerRow?: number },
): Promise<SheetSummary> {
  const facts: XlsxFacts = { worksheets: [], merges: [] };
  const first: SheetRow[] = [];
  const wanted: SheetRow[] = [];
  let total = 0;
  let upToWanted = 0;
  for await (const row of readRows(source, opts.worksheetId, { facts })) {
    total++;
    if (opts.headerRow !== undefined && row.number <= opts.headerRow) upToWanted++;
    if (first.length < HEADER_SCAN_ROWS) first.push(row);
    if (opts.headerRow !== undefined && row.number === opts.headerRow) wanted.push(row);
  }
  const worksheets = source.format === 'csv' ? [csvWorksheet(source.fileName)] : facts.worksheets;
  const worksheet = source.format === 'csv' ? worksheets[0] : facts.worksheet;
  if (!worksheet) {
    if (opts.worksheetId !== undefined)
      throw new ValidationError(`The file has no worksheet with id '${opts.worksheetId}'`, {
        title: 'Unknown worksheet',
        solution: `Use one of the ids in worksheets: ${worksheets.map((w) => `${w.id} (${w.name})`).join(', ')}`,
        details: [{ field: 'file_worksheet_id', message: 'is not one of worksheets[].id' }],
      });
    throw new ValidationError('The workbook has no cell filled in any worksheet', {
      title: 'Empty spreadsheet',
      solution: 'Upload a file with a header row and one row per product',
      details: [{ field: 'file', message: 'has no data' }],
    });
  }
  const headerRow = opts.headerRow ?? detectHeaderRow(first);
  const header = opts.headerRow !== undefined ? wanted[0] : first.find((r) => r.number === headerRow);
  if (headerRow === undefined || header === undefined) {
    const message =
      headerRow === undefined
        ? `worksheet '${worksheet.name}' is empty`
        : `row ${headerRow} of worksheet '${worksheet.name}' is empty`;
    throw new ValidationError(`No header row: ${message}`, {
      title: 'No header row',
      solution: 'Name a row that holds the column headers (file_header_row), or pick another worksheet',
      details: [{ field: 'file_header_row', message }],
    });
  }
  const headers = headersOf(header, facts.merges);
  const above = opts.headerRow !== undefined ? upToWanted : first.filter((r) => r.number <= header.number).length;
  return {
    worksheets,
    worksheet,
    header_row: header.number,
    headers,
    columns_count: headers.length,
    rows_count: Math.max(0, total - above),
  };
}
