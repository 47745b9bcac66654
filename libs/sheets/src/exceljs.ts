import type * as ExcelJS from 'exceljs';

/**
 * exceljs, required the first time a workbook is read or written: an app that never touches an
 * XLSX file (io-jobs between imports and exports) does not hold its ~650 modules (~10 MB).
 */
export function exceljs(): typeof ExcelJS {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, on purpose
  return require('exceljs') as typeof ExcelJS;
}
