import { PassThrough, type Readable } from 'node:stream';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import type { Cell, SheetRow } from './cells';
import type { MergedRange, Worksheet, XlsxFacts } from './xlsx';

// An ODS file (OpenDocument spreadsheet, LibreOffice's own format) is a ZIP package whose
// `content.xml` holds every worksheet: `<table:table table:name="…">` elements of
// `<table:table-row>`s of `<table:table-cell>`s, a cell typed by `office:value-type` with its value
// in an attribute (`office:value`, `office:date-value`, `office:boolean-value`…) and its text in
// `<text:p>` paragraphs. Runs of identical rows and cells are written once with a repeat count, and
// LibreOffice ends a sheet with a repeat of every row and column it did not use (1,048,576 rows,
// 1,024 or 16,384 columns): empty repeats are counted, never laid out.

const OFFICE = 'urn:oasis:names:tc:opendocument:xmlns:office:1.0';
const TABLE = 'urn:oasis:names:tc:opendocument:xmlns:table:1.0';
const TEXT = 'urn:oasis:names:tc:opendocument:xmlns:text:1.0';
const CALCEXT = 'urn:org:documentfoundation:names:experimental:calc:xmlns:calcext:1.0';

/**
 * The qualified names read, under the prefixes the document binds to their namespaces (`table:`,
 * `office:`… by every program seen, but a document may choose others). The parser is run without
 * namespace processing — about three times faster — so names are matched as written, their
 * prefixes taken from the root element, where ODF documents declare every namespace.
 */
function namesOf(prefixOf: (uri: string) => string | undefined) {
  const [office, table, text, calcext] = [
    [OFFICE, 'office'],
    [TABLE, 'table'],
    [TEXT, 'text'],
    [CALCEXT, 'calcext'],
  ].map(([uri, usual]) => prefixOf(uri) ?? usual);
  const name = (prefix: string, local: string) => (prefix ? `${prefix}:${local}` : local);
  return {
    table: name(table, 'table'),
    row: name(table, 'table-row'),
    cell: name(table, 'table-cell'),
    coveredCell: name(table, 'covered-table-cell'),
    tableName: name(table, 'name'),
    rowsRepeated: name(table, 'number-rows-repeated'),
    columnsRepeated: name(table, 'number-columns-repeated'),
    columnsSpanned: name(table, 'number-columns-spanned'),
    rowsSpanned: name(table, 'number-rows-spanned'),
    valueType: name(office, 'value-type'),
    value: name(office, 'value'),
    dateValue: name(office, 'date-value'),
    timeValue: name(office, 'time-value'),
    booleanValue: name(office, 'boolean-value'),
    stringValue: name(office, 'string-value'),
    calcValueType: name(calcext, 'value-type'),
    /** Any element of the text namespace starts so. */
    text: name(text, ''),
    p: name(text, 'p'),
    h: name(text, 'h'),
    s: name(text, 's'),
    c: name(text, 'c'),
    tab: name(text, 'tab'),
    lineBreak: name(text, 'line-break'),
    note: name(text, 'note'),
    rubyText: name(text, 'ruby-text'),
  };
}
type Names = ReturnType<typeof namesOf>;

/** The widest and longest a sheet is in Excel and LibreOffice: a value past them is a damaged (or hostile) file. */
const MAX_COLUMNS = 16_384;
const MAX_ROWS = 1_048_576;
/**
 * Merged ranges kept per worksheet: only those over the header row are used, and a repeated row
 * with a merge would otherwise add one per repeat.
 */
const MAX_MERGES = 10_000;

interface ZipEntry extends NodeJS.ReadableStream {
  path: string;
  autodrain(): unknown;
}

interface ZipParser extends NodeJS.WritableStream {
  on(event: 'entry', listener: (entry: ZipEntry) => void): this;
  on(event: 'error', listener: (err: Error) => void): this;
  on(event: 'close', listener: () => void): this;
}

/** unzipper (exceljs reads XLSX packages with it), required on first use like exceljs. */
function unzipper(): { Parse(): ZipParser } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- untyped, loaded on first use
  return require('unzipper') as { Parse(): ZipParser };
}

/** A zlib error: the bytes of a part could not be inflated. */
const isInflateError = (err: Error & { code?: unknown }) => typeof err.code === 'string' && err.code.startsWith('Z_');

/**
 * The `content.xml` part of an OpenDocument package as text, streamed as the package is (the parts
 * before it are drained, never inflated). Fails when the package has none.
 */
function contentXml(stream: Readable): Promise<Readable> {
  return new Promise((resolve, reject) => {
    const zip = unzipper().Parse();
    let content: PassThrough | undefined;
    const fail = (err: Error) => {
      // An encrypted part does not inflate: say what is most likely the matter.
      const cause = isInflateError(err)
        ? new Error(`its content could not be unpacked (a password-protected file is not read): ${err.message}`)
        : err;
      if (content) content.destroy(cause);
      else reject(cause);
    };
    stream.on('error', fail);
    zip.on('error', fail);
    zip.on('entry', (entry) => {
      if (content || entry.path !== 'content.xml') {
        entry.autodrain();
        return;
      }
      content = new PassThrough();
      content.setEncoding('utf8');
      entry.on('error', fail);
      entry.pipe(content);
      resolve(content);
    });
    zip.on('close', () => {
      if (!content) reject(new Error('it holds no content.xml (not an OpenDocument spreadsheet)'));
    });
    stream.pipe(zip);
  });
}

/** What the content parser tells as it goes: a worksheet begins, or a non-empty row (run) was read. */
type ContentEvent =
  { kind: 'worksheet'; worksheet: Worksheet; merges: MergedRange[] } | { kind: 'row'; row: SheetRow; repeat: number };

/** A cell being read: what its attributes say, and its paragraphs once read. */
interface OpenCell {
  repeat: number;
  columnsSpanned: number;
  rowsSpanned: number;
  type?: string;
  value?: string;
  dateValue?: string;
  timeValue?: string;
  booleanValue?: string;
  stringValue?: string;
  error: boolean;
  paragraphs: string[];
}

/** A repeat count or span (`table:number-rows-repeated`…): a whole number of at least 1. */
const countOf = (value: string): number => {
  const n = Math.floor(Number(value));
  return Number.isFinite(n) && n > 1 ? n : 1;
};

const DATE = /^(-?\d{4,})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?)?(Z|[+-]\d{2}:\d{2})?$/;

/**
 * An `office:date-value` as the XLSX reader returns a date cell: a date alone at UTC midnight, a
 * date and time as written (its wall-clock time in UTC: the file has no time zone), unless the value
 * names its offset.
 */
export function odsDate(value: string | undefined): Date | undefined {
  const m = DATE.exec(value?.trim() ?? '');
  if (!m) return undefined;
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0 to 99 as 1900 to 1999.
  date.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  date.setUTCHours(
    Number(m[4] ?? 0),
    Number(m[5] ?? 0),
    Number(m[6] ?? 0),
    m[7] ? Math.round(Number(`0.${m[7]}`) * 1000) : 0,
  );
  if (m[8] && m[8] !== 'Z') {
    const minutes = Number(m[8].slice(1, 3)) * 60 + Number(m[8].slice(4, 6));
    date.setTime(date.getTime() - (m[8][0] === '-' ? -1 : 1) * minutes * 60_000);
  }
  return Number.isNaN(date.getTime()) ? undefined : date;
}

const DURATION = /^(-)?P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;
/** Day 0 of spreadsheet serial dates: a time of day is a date-time on it, as the XLSX reader gives a time cell. */
const SERIAL_EPOCH = Date.UTC(1899, 11, 30);

/** An `office:time-value` (`PT10H20M30S`) as the XLSX reader returns a time cell: that time on 1899-12-30 (UTC). */
export function odsTime(value: string | undefined): Date | undefined {
  const m = DURATION.exec(value?.trim() ?? '');
  if (!m || m[0] === 'P' || m[0] === '-P') return undefined;
  const [days, hours, minutes, seconds] = [m[2], m[3], m[4], m[5]].map((v) => Number(v ?? 0));
  const ms = Math.round((((days * 24 + hours) * 60 + minutes) * 60 + seconds) * 1000);
  return new Date(SERIAL_EPOCH + (m[1] ? -ms : ms));
}

/**
 * The text a float cell shows when its number format pads a whole number with zeros (`00123`,
 * `01310-100`, `SKU 0042`): the sheet's own text, as the XLSX reader gives such a cell (see
 * `formattedInteger`), with the number kept for number targets. Undefined for every other cell — a
 * number shown as itself, with thousands or decimals, a currency or a percentage — which stays
 * the number.
 */
export function paddedText(cell: Pick<OpenCell, 'type' | 'value' | 'paragraphs'>): string | undefined {
  if (cell.type !== 'float' || cell.paragraphs.length !== 1) return undefined;
  const value = Number(cell.value);
  const shown = cell.paragraphs[0];
  if (!Number.isSafeInteger(value) || shown === String(value) || /[.,]/.test(shown)) return undefined;
  const digits = shown.replace(/\D/g, '');
  const own = String(Math.abs(value));
  // Padded: more digits than the number's own, the extra ones leading zeros.
  return digits.length > own.length && digits === own.padStart(digits.length, '0') ? shown : undefined;
}

/** A cell's text: its paragraphs, one a line; empty is nothing. */
const textOf = (cell: OpenCell): Cell => cell.paragraphs.join('\n') || null;

/**
 * A cell's value, typed as the XLSX reader types one: a number (float, percentage — 15 % is 0.15 —,
 * currency), a boolean, a date, or text; an error cell (`#DIV/0!`) is empty, as in XLSX.
 */
function valueOf(cell: OpenCell): Cell {
  if (cell.error) return null;
  switch (cell.type) {
    case 'float':
    case 'percentage':
    case 'currency': {
      const n = cell.value === undefined || cell.value.trim() === '' ? NaN : Number(cell.value);
      return Number.isFinite(n) ? n : textOf(cell);
    }
    case 'boolean': {
      const b = cell.booleanValue?.trim().toLowerCase();
      if (b === 'true' || b === '1') return true;
      if (b === 'false' || b === '0') return false;
      return textOf(cell);
    }
    case 'date':
      return odsDate(cell.dateValue) ?? textOf(cell);
    case 'time':
      return odsTime(cell.timeValue) ?? textOf(cell);
    case 'string':
      return cell.stringValue || textOf(cell);
    default:
      // No type: void by the standard, but other programs than LibreOffice write bare text cells.
      return textOf(cell);
  }
}

/**
 * Reads `content.xml` as a state machine over a streaming XML parser (saxes):
 * each chunk written gives the events it completes, so memory holds one chunk's rows at most. A row
 * run (`table:number-rows-repeated`) is one event with its count; cells are laid out only when they
 * hold a value (an empty run just moves the column on), so trailing repeats cost nothing.
 */
class ContentReader {
  private readonly parser = new SaxesParser({ xmlns: false, position: false });
  /** Set by the root element. */
  private names: Names | undefined;
  private events: ContentEvent[] = [];
  private tables = 0;
  private table: { merges: MergedRange[]; rows: number } | undefined;
  private row:
    | {
        repeat: number;
        cells: Cell[];
        formattedNumbers?: (number | undefined)[];
        column: number;
        spans: { left: number; right: number; rows: number }[];
      }
    | undefined;
  private cell: OpenCell | undefined;
  /** A paragraph of the cell being read: the text so far and whitespace-collapsible text not yet added. */
  private paragraph: { text: string; raw: string } | undefined;
  /** Depth inside an element whose text is not the cell's (a comment, a drawing, a footnote). */
  private skip = 0;

  constructor() {
    this.parser.on('opentag', (tag) => this.open(tag));
    this.parser.on('closetag', (tag) => this.close(tag));
    this.parser.on('text', (text) => this.text(text));
    this.parser.on('cdata', (text) => this.text(text));
  }

  write(chunk: string): void {
    this.parser.write(chunk);
  }

  end(): void {
    this.parser.close();
  }

  /** The events completed since the last call. */
  take(): ContentEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }

  private open(tag: SaxesTagPlain): void {
    const n = this.names;
    if (!n) {
      this.names = namesOf((uri) => {
        for (const [name, value] of Object.entries(tag.attributes)) {
          if (value !== uri) continue;
          if (name === 'xmlns') return '';
          if (name.startsWith('xmlns:')) return name.slice(6);
        }
        return undefined;
      });
      return;
    }
    if (this.skip > 0) {
      this.skip++;
      return;
    }
    if (this.cell) return this.openInCell(tag, n);
    if (tag.name === n.table) {
      if (this.table)
        this.skip = 1; // a table inside a table is no worksheet
      else this.startTable(tag, n);
    } else if (tag.name === n.row && this.table && !this.row) this.startRow(tag, n);
    else if ((tag.name === n.cell || tag.name === n.coveredCell) && this.row) this.startCell(tag, n);
  }

  private openInCell(tag: SaxesTagPlain, n: Names): void {
    if (!this.paragraph) {
      if (tag.name === n.p || tag.name === n.h) this.paragraph = { text: '', raw: '' };
      else this.skip = 1; // a comment (office:annotation), a drawing anchored to the cell…
      return;
    }
    if (!tag.name.startsWith(n.text)) {
      this.skip = 1; // a frame or drawing inside the text
      return;
    }
    switch (tag.name) {
      case n.s:
        return this.literal(' '.repeat(Math.min(countOf(tag.attributes[n.c] ?? '1'), 10_000)));
      case n.tab:
        return this.literal('\t');
      case n.lineBreak:
        return this.literal('\n');
      case n.note:
      case n.rubyText:
        this.skip = 1; // a footnote's or a ruby's text is not the cell's
        return;
      default:
      // Spans, links, fields: their text is the paragraph's.
    }
  }

  private close(tag: SaxesTagPlain): void {
    const n = this.names!;
    if (this.skip > 0) {
      this.skip--;
      return;
    }
    if (this.cell) {
      if (this.paragraph) {
        if (tag.name === n.p || tag.name === n.h) this.endParagraph();
      } else if (tag.name === n.cell || tag.name === n.coveredCell) this.endCell();
      return;
    }
    if (tag.name === n.row && this.row) this.endRow();
    else if (tag.name === n.table && this.table) this.table = undefined;
  }

  private text(text: string): void {
    if (this.paragraph && this.skip === 0) this.paragraph.raw += text;
  }

  private startTable(tag: SaxesTagPlain, n: Names): void {
    this.tables++;
    const worksheet = { id: String(this.tables), name: tag.attributes[n.tableName] || `Sheet${this.tables}` };
    this.table = { merges: [], rows: 0 };
    this.events.push({ kind: 'worksheet', worksheet, merges: this.table.merges });
  }

  private startRow(tag: SaxesTagPlain, n: Names): void {
    this.row = { repeat: countOf(tag.attributes[n.rowsRepeated] ?? '1'), cells: [], column: 0, spans: [] };
  }

  private startCell(tag: SaxesTagPlain, n: Names): void {
    const a = tag.attributes;
    this.cell = {
      repeat: countOf(a[n.columnsRepeated] ?? '1'),
      columnsSpanned: countOf(a[n.columnsSpanned] ?? '1'),
      rowsSpanned: countOf(a[n.rowsSpanned] ?? '1'),
      type: a[n.valueType],
      value: a[n.value],
      dateValue: a[n.dateValue],
      timeValue: a[n.timeValue],
      booleanValue: a[n.booleanValue],
      stringValue: a[n.stringValue],
      // LibreOffice marks an error result (#DIV/0!) so; its value-type is that of a good result.
      error: a[n.calcValueType] === 'error',
      paragraphs: [],
    };
  }

  private endCell(): void {
    const cell = this.cell!;
    const row = this.row!;
    this.cell = undefined;
    const at = row.column;
    row.column += cell.repeat;
    if (cell.columnsSpanned > 1 || cell.rowsSpanned > 1) {
      for (let k = 0; k < cell.repeat && row.spans.length < MAX_MERGES; k++)
        row.spans.push({ left: at + k, right: at + k + cell.columnsSpanned - 1, rows: cell.rowsSpanned });
    }
    const number = valueOf(cell);
    if (number === null) return;
    if (row.column > MAX_COLUMNS)
      throw new Error(`a row holds a value past column ${MAX_COLUMNS.toLocaleString('en')}`);
    const padded = paddedText(cell);
    const value = padded ?? number;
    while (row.cells.length < at) row.cells.push(null);
    for (let k = 0; k < cell.repeat; k++) {
      if (padded !== undefined) (row.formattedNumbers ??= [])[row.cells.length] = number as number;
      row.cells.push(value);
    }
  }

  private endRow(): void {
    const row = this.row!;
    const table = this.table!;
    this.row = undefined;
    const first = table.rows + 1;
    table.rows += row.repeat;
    for (const span of row.spans)
      for (let k = 0; k < row.repeat && table.merges.length < MAX_MERGES; k++)
        table.merges.push({ top: first + k, left: span.left, bottom: first + k + span.rows - 1, right: span.right });
    if (row.cells.length === 0) return;
    if (table.rows > MAX_ROWS) throw new Error(`a worksheet holds a value past row ${MAX_ROWS.toLocaleString('en')}`);
    const read: SheetRow = row.formattedNumbers
      ? { number: first, cells: row.cells, formattedNumbers: row.formattedNumbers }
      : { number: first, cells: row.cells };
    this.events.push({ kind: 'row', row: read, repeat: row.repeat });
  }

  /** `<text:s/>`, `<text:tab/>`, `<text:line-break/>`: characters kept as they are. */
  private literal(text: string): void {
    this.flush();
    this.paragraph!.text += text;
  }

  /**
   * Adds the paragraph's plain text so far, its whitespace collapsed as ODF says (a run of spaces,
   * tabs and line ends is one space, none at the paragraph's start): the file's own spaces beyond
   * one are `<text:s/>` elements.
   */
  private flush(): void {
    const p = this.paragraph!;
    if (p.raw === '') return;
    const text = p.raw.replace(/[ \t\r\n]+/g, ' ');
    p.text += p.text === '' ? text.trimStart() : text;
    p.raw = '';
  }

  private endParagraph(): void {
    this.flush();
    this.cell!.paragraphs.push(this.paragraph!.text);
    this.paragraph = undefined;
  }
}

/** The events of a `content.xml` text stream, as its chunks are parsed. */
async function* contentEvents(xml: AsyncIterable<string>): AsyncGenerator<ContentEvent> {
  const reader = new ContentReader();
  for await (const chunk of xml) {
    reader.write(chunk);
    yield* reader.take();
  }
  reader.end();
  yield* reader.take();
}

/**
 * The non-empty rows of one worksheet of an ODS file, streamed (the package and its `content.xml`
 * alike: never whole in memory), as `xlsxRows` gives an XLSX worksheet's: numbered as in the sheet,
 * cells typed, trailing empty cells cut. Worksheets are identified by their order (`'1'` = first).
 * `worksheetId` picks one; without it, the first worksheet that holds a cell is read; with
 * `facts.every`, every worksheet in turn. `facts` is filled as reading goes (the worksheets as they
 * are met, the merges of the one read as its rows are).
 */
export async function* odsRows(
  stream: Readable,
  worksheetId: string | undefined,
  facts: XlsxFacts = { worksheets: [], merges: [] },
): AsyncGenerator<SheetRow> {
  let content: Readable | undefined;
  try {
    content = await contentXml(stream);
    let current: Extract<ContentEvent, { kind: 'worksheet' }> | undefined;
    let reading = false;
    for await (const event of contentEvents(content as AsyncIterable<string>)) {
      if (event.kind === 'worksheet') {
        if (!facts.every && facts.worksheet) break; // the worksheet read is over
        current = event;
        facts.worksheets.push(event.worksheet);
        reading = facts.every === true || worksheetId === undefined || event.worksheet.id === worksheetId;
        if (facts.every || event.worksheet.id === worksheetId)
          Object.assign(facts, { worksheet: event.worksheet, merges: event.merges });
        continue;
      }
      if (!reading || !current) continue;
      if (!facts.worksheet) Object.assign(facts, { worksheet: current.worksheet, merges: current.merges });
      const { row, repeat } = event;
      for (let k = 0; k < repeat; k++) {
        const cells = k === 0 ? row.cells : row.cells.slice();
        yield row.formattedNumbers
          ? {
              number: row.number + k,
              cells,
              formattedNumbers: k === 0 ? row.formattedNumbers : row.formattedNumbers.slice(),
            }
          : { number: row.number + k, cells };
      }
    }
  } finally {
    content?.destroy();
    stream.destroy();
  }
}
