import { ValidationError } from '@pim/errors';

/** The spreadsheet formats read and written. */
export type SheetFormat = 'csv' | 'xlsx';

/** How many leading bytes `detectFormat` needs (fewer when the file is shorter). */
export const SNIFF_BYTES = 8_192;

const ZIP = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const OLE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const UTF16_BOMS = [Buffer.from([0xff, 0xfe]), Buffer.from([0xfe, 0xff])];

/** Signatures of common files that are not spreadsheets, for a clearer message. */
const KNOWN: { magic: Buffer; what: string }[] = [
  { magic: Buffer.from('%PDF'), what: 'a PDF document' },
  { magic: Buffer.from([0x89, 0x50, 0x4e, 0x47]), what: 'a PNG image' },
  { magic: Buffer.from([0xff, 0xd8, 0xff]), what: 'a JPEG image' },
  { magic: Buffer.from('GIF8'), what: 'a GIF image' },
  { magic: Buffer.from([0x1f, 0x8b]), what: 'a gzip archive' },
];

const notASpreadsheet = (
  what: string,
  fileName: string | undefined,
  solution = 'Upload an .xlsx workbook or a .csv file (comma or semicolon separated)',
) =>
  new ValidationError(`${fileName ? `'${fileName}'` : 'The file'} is ${what}, not a spreadsheet`, {
    title: 'Not a spreadsheet',
    solution,
    details: [{ field: 'file', message: `is ${what}; expected XLSX or CSV` }],
  });

/**
 * Tells a file's format from its first bytes (at least `SNIFF_BYTES` of them, or the whole file):
 * a ZIP container is read as XLSX (a ZIP that is not a workbook fails when it is opened), text is
 * CSV. An Excel 97-2003 `.xls`, a known binary format or any other binary content is a 400.
 */
export function detectFormat(head: Buffer, fileName?: string): SheetFormat {
  if (head.subarray(0, ZIP.length).equals(ZIP)) return 'xlsx';
  if (head.subarray(0, OLE.length).equals(OLE))
    throw notASpreadsheet(
      'an Excel 97-2003 workbook (.xls)',
      fileName,
      'Open it in a spreadsheet program and save it as .xlsx (Excel Workbook), then upload that file',
    );
  for (const k of KNOWN) if (head.subarray(0, k.magic.length).equals(k.magic)) throw notASpreadsheet(k.what, fileName);
  if (UTF16_BOMS.some((bom) => head.subarray(0, 2).equals(bom))) return 'csv';
  // Text has no NUL bytes and few control characters other than tab, CR and LF.
  let control = 0;
  for (const byte of head) {
    if (byte === 0) throw notASpreadsheet('binary data', fileName);
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c) control++;
  }
  if (control > Math.max(4, head.length / 100)) throw notASpreadsheet('binary data', fileName);
  return 'csv';
}
