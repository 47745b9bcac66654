import { inflateRawSync, constants as zlib } from 'node:zlib';
import { ValidationError } from '@pim/errors';

/** The spreadsheet formats written (exports, error files); each is read too. */
export type SheetFormat = 'csv' | 'xlsx';

/** The spreadsheet formats read: those written, and ODS (OpenDocument, LibreOffice's own format), never written. */
export type SheetReadFormat = SheetFormat | 'ods';

/** How many leading bytes `detectFormat` needs (fewer when the file is shorter). */
export const SNIFF_BYTES = 8_192;

const ZIP = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const OLE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const UTF16_BOMS = [Buffer.from([0xff, 0xfe]), Buffer.from([0xfe, 0xff])];

/** Signatures of common files that are not spreadsheets, for a clearer message. */
const KNOWN: { magic: Buffer; what: string }[] = [
  { magic: Buffer.from('%PDF'), what: 'a PDF document' },
  { magic: Buffer.from([0x89, 0x50, 0x4e, 0x47]), what: 'a PNG image' },
  { magic: Buffer.from([0xff, 0xd8, 0xff]), what: 'a JPEG image' },
  { magic: Buffer.from('GIF8'), what: 'a GIF image' },
  { magic: Buffer.from([0x1f, 0x8b]), what: 'a gzip archive' },
];

const ODS_MIMETYPE = 'application/vnd.oasis.opendocument.spreadsheet';

/** OpenDocument files by their `mimetype`, for what an upload is when it is no spreadsheet. */
const OPEN_DOCUMENTS = new Map([
  ['application/vnd.oasis.opendocument.text', 'an OpenDocument text document (.odt)'],
  ['application/vnd.oasis.opendocument.presentation', 'an OpenDocument presentation (.odp)'],
  ['application/vnd.oasis.opendocument.graphics', 'an OpenDocument drawing (.odg)'],
  ['application/epub+zip', 'an EPUB e-book'],
]);

const SAVE_AS = 'Save it as .xlsx, .ods or .csv (comma or semicolon separated) and upload that file';

const notASpreadsheet = (
  what: string,
  fileName: string | undefined,
  solution = 'Upload an .xlsx or .ods workbook or a .csv file (comma or semicolon separated)',
) =>
  new ValidationError(`${fileName ? `'${fileName}'` : 'The file'} is ${what}, not a spreadsheet`, {
    title: 'Not a spreadsheet',
    solution,
    details: [{ field: 'file', message: `is ${what}; expected XLSX, ODS or CSV` }],
  });

/** A spreadsheet in a format the platform does not read: named, with what to save it as instead. */
const notRead = (what: string, fileName: string | undefined, solution = SAVE_AS) =>
  new ValidationError(`${fileName ? `'${fileName}'` : 'The file'} is ${what}, which is not read`, {
    title: 'Spreadsheet format not read',
    solution,
    details: [{ field: 'file', message: `is ${what}; expected XLSX, ODS or CSV` }],
  });

/** The local file headers within `head`: each part's name and, when stored uncompressed or deflated, its first bytes. */
function zipParts(head: Buffer): { name: string; data?: Buffer }[] {
  const parts: { name: string; data?: Buffer }[] = [];
  for (let at = head.indexOf(ZIP); at !== -1 && at + 30 <= head.length; at = head.indexOf(ZIP, at + 4)) {
    const method = head.readUInt16LE(at + 8);
    const size = head.readUInt32LE(at + 18);
    const nameLength = head.readUInt16LE(at + 26);
    const start = at + 30 + nameLength + head.readUInt16LE(at + 28);
    if (at + 30 + nameLength > head.length) break;
    const name = head.subarray(at + 30, at + 30 + nameLength).toString('utf8');
    const raw = head.subarray(start, size > 0 ? Math.min(head.length, start + size) : head.length);
    let data: Buffer | undefined;
    if (method === 0) data = raw;
    else if (method === 8) {
      try {
        // The head holds the start of a part at most: inflate what is there.
        data = inflateRawSync(raw, { finishFlush: zlib.Z_SYNC_FLUSH });
      } catch {
        data = undefined;
      }
    }
    parts.push({ name, data });
  }
  return parts;
}

/**
 * What a ZIP container is, from its first parts (best effort: the head holds a few of them): an ODS
 * (its `mimetype` part comes first, stored, by the standard), another OpenDocument, an Office
 * document other than a workbook (its `[Content_Types].xml` or its part names say so), or XLSX —
 * a ZIP that turns out to hold no workbook is refused when it is read.
 */
function zipFormat(head: Buffer, fileName: string | undefined): SheetReadFormat {
  const parts = zipParts(head);
  const first = parts[0];
  if (first?.name === 'mimetype' && first.data) {
    const mimetype = first.data.toString('latin1').trim();
    if (mimetype === ODS_MIMETYPE || mimetype === `${ODS_MIMETYPE}-template`) return 'ods';
    const shown = mimetype.slice(0, 100).replace(/[^\x20-\x7e]/g, '?');
    throw notASpreadsheet(OPEN_DOCUMENTS.get(mimetype) ?? `an OpenDocument file (${shown})`, fileName);
  }
  const types = parts.find((p) => p.name === '[Content_Types].xml')?.data?.toString('utf8') ?? '';
  const names = parts.map((p) => p.name);
  const has = (prefix: string) => names.some((n) => n.startsWith(prefix));
  if (types.includes('sheet.binary') || names.includes('xl/workbook.bin'))
    throw notRead(
      'an Excel binary workbook (.xlsb)',
      fileName,
      'Save it as .xlsx (Excel Workbook) and upload that file',
    );
  if (types.includes('wordprocessingml') || has('word/')) throw notASpreadsheet('a Word document (.docx)', fileName);
  if (types.includes('presentationml') || has('ppt/'))
    throw notASpreadsheet('a PowerPoint presentation (.pptx)', fileName);
  return 'xlsx';
}

/** The start of text whichever its encoding (a byte order mark says UTF-16), for telling XML and HTML. */
function textStart(head: Buffer): string {
  const even = (bytes: Buffer) => bytes.subarray(0, bytes.length - (bytes.length % 2));
  if (head.subarray(0, 2).equals(UTF16_BOMS[0])) return even(head.subarray(2)).toString('utf16le');
  if (head.subarray(0, 2).equals(UTF16_BOMS[1]))
    return Buffer.from(even(head.subarray(2)))
      .swap16()
      .toString('utf16le');
  return head.subarray(head.subarray(0, 3).equals(UTF8_BOM) ? 3 : 0).toString('latin1');
}

/**
 * XML or HTML, which a CSV reader would take for rows of text: a flat OpenDocument (`.fods`, an
 * `office:document` root), an Excel 2003 XML spreadsheet, an HTML page (what many "Excel" exports of
 * web systems are), or other XML. Undefined for anything else.
 */
function markupError(head: Buffer, fileName: string | undefined): ValidationError | undefined {
  const text = textStart(head).trimStart();
  if (/^<(!doctype\s+html|html[\s>])/i.test(text))
    return notASpreadsheet(
      'an HTML page (a web page saved with a spreadsheet name)',
      fileName,
      `Open it in a spreadsheet program and ${SAVE_AS.charAt(0).toLowerCase()}${SAVE_AS.slice(1)}`,
    );
  if (!text.startsWith('<?xml')) return undefined;
  if (/<office:document[\s>]/.test(text)) {
    if (/office:mimetype\s*=\s*["']application\/vnd\.oasis\.opendocument\.spreadsheet["']/.test(text))
      return notRead('a flat OpenDocument spreadsheet (.fods)', fileName);
    return notASpreadsheet('a flat OpenDocument file (.fodt, .fodp…)', fileName);
  }
  if (/<html[\s>]/i.test(text)) return notASpreadsheet('an XHTML page', fileName);
  if (text.includes('urn:schemas-microsoft-com:office:spreadsheet'))
    return notRead(
      'an Excel 2003 XML spreadsheet (.xml)',
      fileName,
      'Save it as .xlsx (Excel Workbook) and upload that file',
    );
  return notASpreadsheet('an XML document', fileName);
}

/** UTF-16LE text, as names are in the directory of an Office 97-2003 file. */
const utf16 = (text: string) => Buffer.from(text, 'utf16le');

/**
 * Tells a file's format from its first bytes (at least `SNIFF_BYTES` of them, or the whole file):
 * a ZIP container is XLSX or ODS (see `zipFormat`), text is CSV. What the platform does not read is
 * a 400 naming what the file is: an Excel 97-2003 `.xls` (or a password-protected workbook, which is
 * the same kind of container), a flat `.fods`, an Excel 2003 XML file, other XML, HTML, another
 * document in a ZIP, a known binary format or any other binary content.
 */
export function detectFormat(head: Buffer, fileName?: string): SheetReadFormat {
  if (head.subarray(0, ZIP.length).equals(ZIP)) return zipFormat(head, fileName);
  if (head.subarray(0, OLE.length).equals(OLE)) {
    // Directory names tell what the container holds when the directory is within the head.
    if (head.includes(utf16('EncryptedPackage')))
      throw notRead(
        'a password-protected workbook',
        fileName,
        'Open it, save a copy without a password as .xlsx, .ods or .csv and upload that file',
      );
    if (head.includes(utf16('WordDocument'))) throw notASpreadsheet('a Word 97-2003 document (.doc)', fileName);
    throw notRead(
      'an Excel 97-2003 workbook (.xls)',
      fileName,
      'Open it in a spreadsheet program and save it as .xlsx (Excel Workbook), then upload that file',
    );
  }
  for (const k of KNOWN) if (head.subarray(0, k.magic.length).equals(k.magic)) throw notASpreadsheet(k.what, fileName);
  const markup = markupError(head, fileName);
  if (markup) throw markup;
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
