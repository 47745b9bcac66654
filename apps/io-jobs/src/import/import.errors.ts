import { PassThrough } from 'node:stream';
import type { DataSource } from 'typeorm';
import { SHEET_CONTENT_TYPES, columnIndex, createSheetWriter, type Cell, type SheetFormat } from '@pim/sheets';
import type { ImportView } from '@pim/resources';
import { refusedRows } from '../repositories/import-errors.repository';

/** The error file of an import: its name, type and bytes. */
export interface ErrorFile {
  fileName: string;
  contentType: string;
  bytes: AsyncIterable<Buffer>;
}

/** Cells as JSON kept them (dates became text) back as cells. */
const cellOf = (value: unknown): Cell =>
  value === null || value === undefined || typeof value === 'object' ? null : (value as Cell);

/**
 * The rows an import refused, in the input's format (CSV or XLSX; XLSX for an ODS, which the
 * platform reads but does not write), under the input's header row
 * plus a `Problems` column naming each row's problems: fix them there and upload the file again.
 * Written as it is read (a page of rows at a time), never whole in memory. A CSV is written as
 * exports are (RFC 4180, texts that start like a formula behind a `'`): the cells kept are the
 * values the import read (its own quote already removed), so a new import of the file, which
 * removes the quote by default, reads them the same.
 */
export function errorFile(
  ds: DataSource,
  record: Pick<ImportView, '_id' | 'file_type' | 'file_name' | 'headers'>,
): ErrorFile {
  // Every program that opens an .ods opens an .xlsx: an ODS import's errors come back as XLSX.
  const format: SheetFormat = record.file_type === 'ods' ? 'xlsx' : ((record.file_type ?? 'csv') as SheetFormat);
  const headers = record.headers ?? [];
  const width = headers.reduce((w, h) => Math.max(w, columnIndex(h.column) + 1), 0);
  const base = (record.file_name ?? 'import').replace(/\.[^.]*$/, '');
  const out = new PassThrough();
  const writer = createSheetWriter(format, out, { worksheetName: 'Errors' });
  const headerRow: Cell[] = Array.from({ length: width }, () => null);
  for (const h of headers) headerRow[columnIndex(h.column)] = h.label;
  void (async () => {
    await writer.write([...headerRow, 'Problems']);
    for await (const page of refusedRows(ds.manager, record._id)) {
      for (const row of page) {
        const cells = Array.from({ length: width }, (_, i) => cellOf(row.cells[i]));
        await writer.write([...cells, row.problems]);
      }
    }
    await writer.end();
  })().catch((err: unknown) => out.destroy(err as Error));
  return { fileName: `${base}-errors.${format}`, contentType: SHEET_CONTENT_TYPES[format], bytes: out };
}
