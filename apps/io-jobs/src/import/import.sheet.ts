import type { Readable } from 'node:stream';
import { ValidationError } from '@pim/errors';
import {
  inspectSheet,
  stripFormulaQuote,
  type SheetReadFormat,
  type SheetSource,
  type SheetSummary,
} from '@pim/sheets';
import type { FileStorage } from '@pim/storage';
import type { ImportEntity } from '../entities/import.entity';

/** The stored file of an import, as the sheet reader opens it (anew on every read). */
export function sheetOf(
  storage: FileStorage,
  record: Pick<ImportEntity, 'file_key' | 'file_type' | 'file_name'>,
): SheetSource {
  return {
    format: record.file_type as SheetReadFormat,
    fileName: record.file_name ?? undefined,
    open: (): Promise<Readable> => storage.get(record.file_key!),
  };
}

/**
 * Reads a worksheet's header row, headers and counts; a file that cannot be read as its format is
 * a 400 (a damaged workbook, a worksheet that is not there).
 */
export async function inspect(
  source: SheetSource,
  opts: { worksheetId?: string; headerRow?: number },
): Promise<SheetSummary> {
  try {
    return await inspectSheet(source, opts);
  } catch (err) {
    if (err instanceof ValidationError) throw err;
    throw new ValidationError(
      `The file could not be read as ${source.format.toUpperCase()}: ${(err as Error).message}`,
      {
        title: 'Unreadable spreadsheet',
        solution:
          source.format === 'csv'
            ? 'Save the file as CSV (comma or semicolon separated, UTF-8) and upload it again'
            : `Open the file in a spreadsheet program, save it again as .${source.format} (without a password) and upload it again`,
      },
    );
  }
}

/**
 * The sheet's facts an import shows, from an inspection; with `stripQuote` (the import's
 * `strip_formula_quote`) header labels lose the `'` a CSV export put before them, as cells do, so
 * a template matches an exported file's headers.
 */
export function sheetFields(summary: SheetSummary, stripQuote: boolean): Partial<ImportEntity> {
  return {
    worksheets: summary.worksheets,
    file_worksheet_id: summary.worksheet.id,
    file_worksheet_name: summary.worksheet.name,
    file_header_row: summary.header_row,
    headers: stripQuote ? summary.headers.map((h) => ({ ...h, label: stripFormulaQuote(h.label) })) : summary.headers,
    columns_count: summary.columns_count,
    rows_count: summary.rows_count,
  };
}
