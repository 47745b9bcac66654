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
  type SheetWriter,
  type SheetWriterOptions,
} from './write';
export { plainCell, type MergedRange, type Worksheet } from './xlsx';
