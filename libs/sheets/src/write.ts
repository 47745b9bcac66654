import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { Cell } from './cells';
import type { SheetFormat } from './detect';
import { exceljs } from './exceljs';

/** Rows written one after another into a CSV or XLSX file. */
export interface SheetWriter {
  /** Writes a row; resolves when the output can take more. */
  write(cells: Cell[]): Promise<void>;
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
}

/** The media type of each format, as a download names it. */
export const SHEET_CONTENT_TYPES: Record<SheetFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

const DATE_FORMAT = 'yyyy-mm-dd';

/** A cell as CSV text: booleans as true and false, dates as ISO 8601 (a date alone when at midnight UTC). */
const csvText = (cell: Cell): string | number | null => {
  // csv-stringify would write 1 and an empty cell, which read back as a number and as nothing.
  if (typeof cell === 'boolean') return cell ? 'true' : 'false';
  if (!(cell instanceof Date)) return cell;
  const iso = cell.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
};

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
  const csv = stringify({ bom: opts.bom ?? true, delimiter: opts.delimiter ?? ',', record_delimiter: 'windows' });
  csv.pipe(out);
  const lost = outputLost(out);
  return {
    async write(cells) {
      if (out.destroyed) await lost;
      if (!csv.write(cells.map(csvText))) await Promise.race([once(csv, 'drain'), lost]);
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
  const lost = outputLost(out);
  return {
    async write(cells) {
      const row = sheet.addRow(cells.map((c) => (c === null ? undefined : c)));
      cells.forEach((c, i) => {
        if (c instanceof Date) row.getCell(i + 1).numFmt = DATE_FORMAT;
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
 * A writer of rows into `out` as CSV (RFC 4180, CRLF line ends, UTF-8 with a byte order mark by
 * default) or XLSX (exceljs's streaming writer: rows are written as they come, not kept).
 */
export function createSheetWriter(format: SheetFormat, out: Writable, opts: SheetWriterOptions = {}): SheetWriter {
  return format === 'csv' ? csvWriter(out, opts) : xlsxWriter(out, opts);
}
