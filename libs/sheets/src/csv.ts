import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import iconv from 'iconv-lite';
import type { SheetRow } from './cells';

/** How a CSV file is written: its text encoding and the character between its fields. */
export interface CsvDialect {
  encoding: 'utf8' | 'utf16le' | 'utf16be' | 'win1252';
  delimiter: ',' | ';' | '\t';
}

/** How much of a CSV file its dialect is told from. */
const SAMPLE_BYTES = 256 * 1024;
const DELIMITERS: CsvDialect['delimiter'][] = [',', ';', '\t'];

/** Whether bytes are UTF-8 (a sequence cut at the end of the sample does not count against it). */
function isUtf8(bytes: Buffer): boolean {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    decoder.decode(bytes, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * The character that splits the sample's lines into the most fields most consistently: for each
 * candidate, the field count most lines share, weighted by how many share it (quoted text is left
 * out of the count). A file of one column is comma separated.
 */
function delimiterOf(text: string): CsvDialect['delimiter'] {
  const lines = text
    .replace(/"[^"]*"/g, '""')
    .split(/\r\n|\n|\r/)
    .filter((l) => l.trim() !== '')
    .slice(0, 50);
  let best: { delimiter: CsvDialect['delimiter']; score: number } = { delimiter: ',', score: 0 };
  for (const delimiter of DELIMITERS) {
    const counts = new Map<number, number>();
    for (const line of lines) {
      const n = line.split(delimiter).length - 1;
      if (n > 0) counts.set(n, (counts.get(n) ?? 0) + 1);
    }
    for (const [n, lineCount] of counts) {
      const score = lineCount * 1_000 + n;
      if (score > best.score) best = { delimiter, score };
    }
  }
  return best.delimiter;
}

/**
 * Tells a CSV file's encoding and delimiter from its first bytes: a UTF-8 or UTF-16 byte order mark
 * says the encoding; otherwise text that is valid UTF-8 is UTF-8 and anything else is Latin-1
 * (Windows-1252, as spreadsheet programs write it). The delimiter is `,`, `;` or tab.
 */
export function csvDialect(sample: Buffer): CsvDialect {
  let encoding: CsvDialect['encoding'];
  if (sample[0] === 0xff && sample[1] === 0xfe) encoding = 'utf16le';
  else if (sample[0] === 0xfe && sample[1] === 0xff) encoding = 'utf16be';
  else encoding = isUtf8(sample) ? 'utf8' : 'win1252';
  return { encoding, delimiter: delimiterOf(iconv.decode(sample, encoding)) };
}

/** Reads up to `bytes` from the start of a stream and destroys it. */
async function readHead(stream: Readable, bytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of stream) {
      chunks.push(chunk as Buffer);
      length += (chunk as Buffer).length;
      if (length >= bytes) break;
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks).subarray(0, bytes);
}

/** The dialect of the CSV file `open` gives, from its first bytes. */
export async function sniffCsv(open: () => Promise<Readable>): Promise<CsvDialect> {
  return csvDialect(await readHead(await open(), SAMPLE_BYTES));
}

/**
 * The records of a CSV file as rows numbered from 1 (a quoted field may span lines: a record is
 * one row), cells as text, an empty field `null`. Decoded from its encoding (a byte order mark is
 * dropped); quotes are read leniently (a stray `"` inside a field is kept as text).
 */
export async function* csvRows(stream: Readable, dialect: CsvDialect): AsyncGenerator<SheetRow> {
  const decoded = stream.pipe(iconv.decodeStream(dialect.encoding, { stripBOM: true }));
  const parser = decoded.pipe(
    parse({
      delimiter: dialect.delimiter,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: false,
      trim: false,
    }),
  );
  stream.on('error', (err) => parser.destroy(err));
  decoded.on('error', (err: Error) => parser.destroy(err));
  let number = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      number++;
      yield { number, cells: record.map((v) => (v === '' ? null : v)) };
    }
  } finally {
    stream.destroy();
    parser.destroy();
  }
}
