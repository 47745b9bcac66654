import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { Cell } from './cells';
import type { SheetFormat } from './detect';
import { exceljs } from './exceljs';
import { UTC } from '@pim/resources';
import { instantToWallTime, isoInZone } from './zones';

/**
 * A date-time to write: an instant the writer shows in its time zone (a wall time in an XLSX date
 * cell, ISO 8601 with the zone's offset in a CSV). A plain Date is written as the calendar fields
 * it holds in UTC: a date alone when at midnight.
 */
export interface InstantCell {
  instant: Date;
}

/** What a writer takes: a cell as sheets hold them, or an instant shown in the writer's zone. */
export type WriteCell = Cell | InstantCell;

const isInstant = (cell: WriteCell): cell is InstantCell =>
  typeof cell === 'object' && cell !== null && 'instant' in cell;

/** Rows written one after another into a CSV or XLSX file. */
export interface SheetWriter {
  /** Writes a row; resolves when the output can take more. */
  write(cells: WriteCell[]): Promise<void>;
  /** Ends the file; resolves when all of it has been handed to the output. */
  end(): Promise<void>;
}

/** How a sheet is written. */
export interface SheetWriterOptions {
  /** The XLSX worksheet's name. */
  worksheetName?: string;
  /** CSV: start with a UTF-8 byte order mark, so Excel reads accents right (default true). */
  bom?: boolean;
  /** CSV: the field separator (default `,`). */
  delimiter?: string;
  /**
   * CSV: put a `'` before a text that starts like a formula (see `neutralizeFormula`), so a
   * spreadsheet program shows it as text instead of running it (default true).
   */
  neutralizeFormulas?: boolean;
  /** The IANA time zone instants (`InstantCell`) are shown in (default UTC). */
  timeZone?: string;
}

/** The media type of each format, as a download names it. */
export const SHEET_CONTENT_TYPES: Record<SheetFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

// What a spreadsheet program may read as a formula when a CSV cell starts with it (OWASP's CSV
// injection list: `=`, `+`, `-`, `@`, tab, CR), and the `'` that hides one: a text already
// starting with `'` gets one more, so removing exactly one on import gives back every text.
const FORMULA_START = /^[=+\-@\t\r']/;

/**
 * A text that starts like a formula (`=`, `+`, `-`, `@`, tab, CR) or with `'`, with a `'` before
 * it; any other text as it is. `stripFormulaQuote` undoes it.
 */
export const neutralizeFormula = (text: string): string => (FORMULA_START.test(text) ? `'${text}` : text);

/**
 * A text without the one `'` that `neutralizeFormula` put before it: removed only when what
 * follows starts with `=`, `+`, `-`, `@`, tab, CR or `'` (`'abc` stays as it is).
 */
export const stripFormulaQuote = (text: string): string =>
  text.startsWith("'") && FORMULA_START.test(text.slice(1)) ? text.slice(1) : text;

// The number formats of XLSX date cells: a date alone at midnight UTC, else the date and the time.
const DATE_FORMAT = 'yyyy-mm-dd';
const DATE_TIME_FORMAT = 'yyyy-mm-dd hh:mm:ss';

const isUtcMidnight = (date: Date): boolean => date.getTime() % 86_400_000 === 0;

/**
 * A cell as CSV text: booleans as true and false, dates as ISO 8601 (a date alone when at midnight
 * UTC), instants as ISO 8601 with the offset of `zone` (`Z` in UTC).
 */
const csvText = (cell: WriteCell, neutralize: boolean, zone: string): string | number | null => {
  if (typeof cell === 'string') return neutralize ? neutralizeFormula(cell) : cell;
  // csv-stringify would write 1 and an empty cell, which read back as a number and as nothing.
  if (typeof cell === 'boolean') return cell ? 'true' : 'false';
  if (isInstant(cell)) return Number.isNaN(cell.instant.getTime()) ? null : isoInZone(cell.instant.getTime(), zone);
  // Numbers are not text: -5 stays -5 (a spreadsheet program reads it as the number it is).
  if (!(cell instanceof Date)) return cell;
  const iso = cell.toISOString();
  return isUtcMidnight(cell) ? iso.slice(0, 10) : iso;
};

/** An XLSX cell's value and number format: an instant as its wall time in `zone`, always with a time. */
function xlsxCell(cell: WriteCell, zone: string): { value: Cell; format?: string } {
  if (isInstant(cell)) {
    const ms = cell.instant.getTime();
    return Number.isNaN(ms)
      ? { value: null }
      : { value: new Date(instantToWallTime(ms, zone)), format: DATE_TIME_FORMAT };
  }
  if (cell instanceof Date) return { value: cell, format: isUtcMidnight(cell) ? DATE_FORMAT : DATE_TIME_FORMAT };
  return { value: cell };
}

/**
 * Rejects once `out` fails or closes before it has taken the whole file (the storage behind it
 * refused more bytes): a writer waiting for room would otherwise wait forever.
 */
function outputLost(out: Writable): Promise<never> {
  const lost = new Promise<never>((_, reject) => {
    out.once('error', reject);
    out.once('close', () => {
      if (!out.writableFinished) reject(new Error('the output closed before the sheet was written'));
    });
  });
  lost.catch(() => undefined); // raced where it matters; never an unhandled rejection
  return lost;
}

function csvWriter(out: Writable, opts: SheetWriterOptions): SheetWriter {
  const csv = stringify({
    bom: opts.bom ?? true,
    delimiter: opts.delimiter ?? ',',
    record_delimiter: 'windows',
    // RFC 4180 quotes a field holding a line break: with CRLF records, csv-stringify quotes only
    // the whole pair, and a lone LF or CR left bare starts a new row in other programs.
    quoted_match: /[\r\n]/,
  });
  csv.pipe(out);
  const neutralize = opts.neutralizeFormulas ?? true;
  const zone = opts.timeZone ?? UTC;
  const lost = outputLost(out);
  return {
    async write(cells) {
      if (out.destroyed) await lost;
      if (!csv.write(cells.map((c) => csvText(c, neutralize, zone)))) await Promise.race([once(csv, 'drain'), lost]);
    },
    async end() {
      csv.end();
      await once(out, 'finish');
    },
  };
}

function xlsxWriter(out: Writable, opts: SheetWriterOptions): SheetWriter {
  const workbook = new (exceljs().stream.xlsx.WorkbookWriter)({
    stream: out,
    useStyles: true,
    useSharedStrings: false,
  });
  const sheet = workbook.addWorksheet((opts.worksheetName ?? 'Sheet1').slice(0, 31));
  const zone = opts.timeZone ?? UTC;
  const lost = outputLost(out);
  return {
    async write(cells) {
      // Typed cells: numbers and booleans as such, dates as date cells (instants at their wall time
      // in the writer's zone), texts as text — never a formula, whatever they start with.
      const typed = cells.map((c) => xlsxCell(c, zone));
      const row = sheet.addRow(typed.map((c) => (c.value === null ? undefined : c.value)));
      typed.forEach((c, i) => {
        if (c.format) row.getCell(i + 1).numFmt = c.format;
      });
      row.commit();
      if (out.destroyed) await lost;
      if (out.writableNeedDrain) await Promise.race([once(out, 'drain'), lost]);
    },
    async end() {
      sheet.commit();
      await workbook.commit();
    },
  };
}

/**
 * A writer of rows into `out` as CSV (RFC 4180: a field holding the separator, a quote, CR or LF
 * is quoted; CRLF line ends; UTF-8 with a byte order mark and texts that start like a formula
 * behind a `'` by default) or XLSX (exceljs's streaming writer: rows are written as they come,
 * not kept; cells typed).
 */
export function createSheetWriter(format: SheetFormat, out: Writable, opts: SheetWriterOptions = {}): SheetWriter {
  return format === 'csv' ? csvWriter(out, opts) : xlsxWriter(out, opts);
}
