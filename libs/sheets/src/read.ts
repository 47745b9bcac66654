import type { Readable } from 'node:stream';
import { ValidationError } from '@pim/errors';
import { columnName, isEmptyCell, type Cell, type SheetRow } from './cells';
import { csvRows, sniffCsv } from './csv';
import type { SheetReadFormat } from './detect';
import { odsRows } from './ods';
import { xlsxRows, type MergedRange, type Worksheet, type XlsxFacts } from './xlsx';

/** A stored spreadsheet as the readers open it: anew for every read. */
export interface SheetSource {
  format: SheetReadFormat;
  fileName?: string;
  open(): Promise<Readable>;
}

/** A column of the header row: its letters and its text. */
export interface SheetHeader {
  column: string;
  label: string;
}

/** A worksheet as an upload lists it: what reading it without a header row named would find. */
export interface WorksheetSummary extends Worksheet {
  /** Its detected header row (absent when the worksheet holds no cell). */
  header_row?: number;
  /** Non-empty rows below its detected header row. */
  rows_count: number;
}

/** What an upload shows of a sheet: its worksheets, the one read, its header row and headers, and its counts. */
export interface SheetSummary {
  worksheets: WorksheetSummary[];
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
 * has one worksheet (`CSV_WORKSHEET_ID`); an XLSX or ODS worksheet is named by its id. With
 * `facts.every`, the rows of every worksheet in turn, `facts.worksheet` naming the one they are on.
 */
export async function* readRows(
  source: SheetSource,
  worksheetId: string | undefined,
  opts: { fromRow?: number; facts?: XlsxFacts } = {},
): AsyncGenerator<SheetRow> {
  const from = opts.fromRow ?? 1;
  if (source.format === 'csv') {
    const worksheet = csvWorksheet(source.fileName);
    if (opts.facts) Object.assign(opts.facts, { worksheets: [worksheet], worksheet, merges: [] });
    const dialect = await sniffCsv(source.open);
    for await (const row of csvRows(await source.open(), dialect)) {
      if (row.number < from || row.cells.every(isEmptyCell)) continue;
      yield row;
    }
    return;
  }
  const rowsOf = source.format === 'ods' ? odsRows : xlsxRows;
  for await (const row of rowsOf(await source.open(), worksheetId, opts.facts)) {
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
 * The header row's columns. A cell covered by a merged range takes the label of the range's first
 * cell (a header merged over B:D names B, C and D). A column whose header cell is empty is listed
 * with an empty label, so that it can be mapped by its letter, when it lies within the header row's
 * width (left of its last label) and a row below fills it: the second column under a title merged
 * over two, once the sheet is saved as CSV (which keeps no merge), or a header the merchant left
 * blank above data. `lastRows[i]` is the last row that fills column i. Other columns without a label
 * are left out: a spacer column, and anything right of the last label (a note beside the table).
 */
export function headersOf(
  row: SheetRow,
  merges: MergedRange[],
  lastRows: readonly (number | undefined)[] = [],
): SheetHeader[] {
  const labels = row.cells.map(labelOf);
  for (const m of merges) {
    if (row.number < m.top || row.number > m.bottom) continue;
    const label = m.top === row.number ? labels[m.left] : '';
    for (let c = m.left; c <= m.right; c++) if (!labels[c]) labels[c] = label ?? '';
  }
  // A merge right of the row's last cell leaves holes in `labels`: each is read as an empty label.
  const width = labels.findLastIndex((label) => Boolean(label)) + 1;
  const headers: SheetHeader[] = [];
  for (let i = 0; i < width; i++) {
    const label = labels[i] ?? '';
    if (label || (lastRows[i] ?? 0) > row.number) headers.push({ column: columnName(i), label });
  }
  return headers;
}

/**
 * Header labels that name what a product table holds, compared without case, accents or
 * punctuation (English, Portuguese and Spanish): the worksheet whose header row has most of them is
 * taken for the products. Short on purpose — a hint among several, not a mapping.
 */
const PRODUCT_LABELS = new Set(
  (
    'code codigo sku ref reference referencia id ean gtin barcode name nome nombre title titulo ' +
    'description descricao descripcion brand marca family familia category categories categoria ' +
    'categorias type tipo price preco precio tags enabled ativo image images imagem imagens'
  ).split(' '),
);

/** A label's words, lower case without accents or punctuation: `Código SKU` → `codigo sku`. */
const wordsOf = (label: string): string[] =>
  label
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

/** Whether a header label looks like a product field: a short label (four words at most) that starts or ends with one of `PRODUCT_LABELS`. */
function namesProductField(label: string): boolean {
  const words = wordsOf(label);
  return words.length > 0 && words.length <= 4 && (PRODUCT_LABELS.has(words[0]) || PRODUCT_LABELS.has(words.at(-1)!));
}

/** What one pass over the workbook learns of a worksheet that holds a cell. */
interface WorksheetPass {
  worksheet: Worksheet;
  merges: MergedRange[];
  /** Its first non-empty rows, where the header row is looked for. */
  first: SheetRow[];
  /** Its non-empty rows. */
  total: number;
  /** The last row that fills each column, by column index (see headersOf). */
  lastRows: number[];
  /** The header row named by the caller, and the non-empty rows down to it. */
  wanted?: SheetRow;
  upToWanted: number;
}

/** A worksheet's detected header row and the non-empty rows below it. */
function detectedOf(pass: WorksheetPass): { header: SheetRow; rows: number } {
  const number = detectHeaderRow(pass.first)!;
  const header = pass.first.find((r) => r.number === number)!;
  return { header, rows: pass.total - pass.first.filter((r) => r.number <= number).length };
}

/**
 * The worksheet that looks like the product table, for a workbook read without one named: among
 * the worksheets with rows below their header row (all that hold a cell when none has), the one
 * whose header row has the most labels naming product fields (`namesProductField`), then the most
 * text cells, then the most rows; the earlier worksheet on a tie. An instructions page (a sentence
 * or two above a few lines) loses to any table beside it.
 */
function productWorksheet(passes: WorksheetPass[]): WorksheetPass | undefined {
  const scored = passes.map((pass) => {
    const { header, rows } = detectedOf(pass);
    const labels = header.cells.filter((c): c is string => typeof c === 'string' && !isEmptyCell(c));
    return { pass, score: [rows > 0 ? 1 : 0, labels.filter(namesProductField).length, labels.length, rows] };
  });
  // Scores compare in order, the first that differs deciding; a tie keeps the earlier worksheet.
  const beats = (a: number[], b: number[]) => {
    const k = a.findIndex((v, i) => v !== b[i]);
    return k !== -1 && a[k] > b[k];
  };
  let best = scored[0];
  for (const s of scored.slice(1)) if (beats(s.score, best.score)) best = s;
  return best?.pass;
}

/**
 * Reads a spreadsheet whole, once and streamed, for what an upload shows: every worksheet with its
 * detected header row and row count, and the worksheet read — the one asked for, or the one that
 * looks like the product table (`productWorksheet`) — with its header row (the one asked for, or
 * detected), its headers and the number of non-empty rows below it. A worksheet that is not there,
 * a header row past the last row, a workbook without a cell and a ZIP without a worksheet are a 400.
 */
export async function inspectSheet(
  source: SheetSource,
  opts: { worksheetId?: string; headerRow?: number },
): Promise<SheetSummary> {
  const facts: XlsxFacts = { worksheets: [], merges: [], every: true };
  const passes = new Map<string, WorksheetPass>();
  let pass: WorksheetPass | undefined;
  for await (const row of readRows(source, undefined, { facts })) {
    const worksheet = facts.worksheet!;
    if (pass?.worksheet.id !== worksheet.id) {
      pass = { worksheet, merges: facts.merges, first: [], total: 0, lastRows: [], upToWanted: 0 };
      passes.set(worksheet.id, pass);
    }
    pass.total++;
    for (let i = 0; i < row.cells.length; i++) if (!isEmptyCell(row.cells[i])) pass.lastRows[i] = row.number;
    if (pass.first.length < HEADER_SCAN_ROWS) pass.first.push(row);
    if (opts.headerRow !== undefined && row.number <= opts.headerRow) {
      pass.upToWanted++;
      if (row.number === opts.headerRow) pass.wanted = row;
    }
  }
  const listed = [...facts.worksheets, ...[...passes.values()].map((p) => p.worksheet)];
  const worksheets: WorksheetSummary[] = listed
    .filter((w, i) => listed.findIndex((o) => o.id === w.id) === i)
    .map((w) => {
      const p = passes.get(w.id);
      if (!p) return { id: w.id, name: w.name, rows_count: 0 };
      const { header, rows } = detectedOf(p);
      return { id: w.id, name: w.name, header_row: header.number, rows_count: rows };
    });
  const named = opts.worksheetId ?? (source.format === 'csv' ? CSV_WORKSHEET_ID : undefined);
  let worksheet: Worksheet | undefined;
  let chosen: WorksheetPass | undefined;
  if (named !== undefined) {
    worksheet = worksheets.find((w) => w.id === named);
    chosen = passes.get(named);
  } else {
    chosen = productWorksheet(worksheets.flatMap((w) => passes.get(w.id) ?? []));
    worksheet = chosen && worksheets.find((w) => w.id === chosen!.worksheet.id);
  }
  if (!worksheet) {
    if (opts.worksheetId !== undefined)
      throw new ValidationError(`The file has no worksheet with id '${opts.worksheetId}'`, {
        title: 'Unknown worksheet',
        solution: `Use one of the ids in worksheets: ${worksheets.map((w) => `${w.id} (${w.name})`).join(', ')}`,
        details: [{ field: 'file_worksheet_id', message: 'is not one of worksheets[].id' }],
      });
    if (worksheets.length === 0) {
      // exceljs finds no worksheet in a ZIP that is no workbook: not the "empty" of a workbook.
      const name = source.fileName ? `'${source.fileName}'` : 'The file';
      throw new ValidationError(`${name} is a ZIP archive with no worksheet in it, not a spreadsheet`, {
        title: 'Not a spreadsheet',
        solution: 'Upload an .xlsx or .ods workbook or a .csv file (comma or semicolon separated)',
        details: [{ field: 'file', message: 'holds no worksheet; expected XLSX, ODS or CSV' }],
      });
    }
    throw new ValidationError('The workbook has no cell filled in any worksheet', {
      title: 'Empty spreadsheet',
      solution: 'Upload a file with a header row and one row per product',
      details: [{ field: 'file', message: 'has no data' }],
    });
  }
  const detected = chosen && detectedOf(chosen);
  const header = opts.headerRow !== undefined ? chosen?.wanted : detected?.header;
  if (header === undefined) {
    const message =
      opts.headerRow === undefined
        ? `worksheet '${worksheet.name}' is empty`
        : `row ${opts.headerRow} of worksheet '${worksheet.name}' is empty`;
    throw new ValidationError(`No header row: ${message}`, {
      title: 'No header row',
      solution: 'Name a row that holds the column headers (file_header_row), or pick another worksheet',
      details: [{ field: 'file_header_row', message }],
    });
  }
  const headers = headersOf(header, chosen!.merges, chosen!.lastRows);
  return {
    worksheets,
    worksheet: { id: worksheet.id, name: worksheet.name },
    header_row: header.number,
    headers,
    columns_count: headers.length,
    rows_count: opts.headerRow !== undefined ? chosen!.total - chosen!.upToWanted : detected!.rows,
  };
}
