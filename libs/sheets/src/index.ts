export { columnIndex, columnName, isEmptyCell, type Cell, type SheetRow } from './cells';
export { csvDialect, type CsvDialect } from './csv';
export { detectFormat, SNIFF_BYTES, type SheetFormat, type SheetReadFormat } from './detect';
export {
  CSV_WORKSHEET_ID,
  detectHeaderRow,
  headersOf,
  inspectSheet,
  readRows,
  type SheetHeader,
  type SheetSource,
  type SheetSummary,
  type WorksheetSummary,
} from './read';
export {
  parseAttributeCell,
  parseBooleanCell,
  parseNumberCell,
  joinList,
  parseTextCell,
  splitList,
  type CellAttribute,
  type Parsed,
} from './values';
export {
  SHEET_CONTENT_TYPES,
  createSheetWriter,
  neutralizeFormula,
  stripFormulaQuote,
  type InstantCell,
  type SheetWriter,
  type SheetWriterOptions,
  type WriteCell,
} from './write';
export { headerTimeZone, instantToWallTime, isoInZone, labelWithTimeZone, wallTimeToInstant } from './zones';
export { plainCell, type MergedRange, type Worksheet } from './xlsx';
