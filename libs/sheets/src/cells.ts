/**
 * A cell as a spreadsheet holds it: text, a number, a boolean, a date (an XLSX date cell), or
 * nothing. CSV cells are always text (or null when empty); XLSX cells keep their type, and a
 * formula cell is its cached result.
 */
export type Cell = string | number | boolean | Date | null;

/** A row of a worksheet: its number in the sheet (1 = first) and its cells, index 0 = column A. */
export interface SheetRow {
  number: number;
  cells: Cell[];
  /**
   * The numbers behind cells that hold the text a number format shows (123 behind `00123`, an XLSX
   * cell formatted `00000`), by cell index: text targets read the cell, number targets the number.
   * Absent when no cell of the row has one.
   */
  formattedNumbers?: (number | undefined)[];
}

/** The index of a column by its letters: A → 0, Z → 25, AA → 26. */
export function columnIndex(column: string): number {
  let n = 0;
  for (const ch of column.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

/** The letters of a column by its index: 0 → A, 26 → AA. */
export function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

/** Whether a cell holds nothing (null, or text of spaces only). */
export const isEmptyCell = (cell: Cell | undefined): boolean =>
  cell === null || cell === undefined || (typeof cell === 'string' && cell.trim() === '');
