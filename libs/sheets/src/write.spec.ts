import { PassThrough } from 'node:stream';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import type { Cell } from './cells';
import { createSheetWriter, neutralizeFormula, stripFormulaQuote, type SheetWriterOptions } from './write';

/** The bytes a writer puts into its output, once it has ended. */
async function written(format: 'csv' | 'xlsx', rows: Cell[][], opts: SheetWriterOptions = {}): Promise<Buffer> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  const w = createSheetWriter(format, out, opts);
  for (const row of rows) await w.write(row);
  await w.end();
  return Buffer.concat(chunks);
}

/**
 * A CSV read as RFC 4180 says, strictly: a quote only around a whole field, every record the
 * header's width, CRLF or LF record ends (what Python's csv module and LibreOffice also read).
 */
const strictCsv = (bytes: Buffer, delimiter = ','): string[][] =>
  parse(bytes, {
    bom: true,
    delimiter,
    relax_quotes: false,
    relax_column_count: false,
    skip_empty_lines: false,
  }) as string[][];

// Texts that broke rows or turned into formulas in other programs.
const AWKWARD = [
  'Caneca\n(lava-louças)',
  'bare\rreturn',
  'windows\r\nline end',
  '\r=1+1',
  '\n=1+1',
  'Say "hi"',
  '"quoted"',
  'a, b; c\td',
  '=não é fórmula',
  '+55 11 5555-0000',
  '-desconto',
  '@SUM(A1:A2)',
  '\tindented',
  "'already quoted",
  "'=was neutralized",
  "''",
  "'",
  'plain',
  '',
  ' =spaced',
];

describe('neutralizeFormula and stripFormulaQuote', () => {
  it("put a ' before texts that start like a formula or with a ', and nothing before others", () => {
    expect(neutralizeFormula('=1+1')).toBe("'=1+1");
    expect(neutralizeFormula('\r=1+1')).toBe("'\r=1+1");
    expect(neutralizeFormula("'abc")).toBe("''abc");
    expect(neutralizeFormula('-5')).toBe("'-5");
    expect(neutralizeFormula(' =1')).toBe(' =1');
    expect(neutralizeFormula('Caneca')).toBe('Caneca');
    expect(neutralizeFormula('')).toBe('');
  });

  it("remove exactly the one ' the rule put, so every text comes back", () => {
    for (const text of AWKWARD) expect(stripFormulaQuote(neutralizeFormula(text))).toBe(text);
    expect(stripFormulaQuote("''=x")).toBe("'=x");
    // A ' before anything else is the text's own: kept.
    expect(stripFormulaQuote("'abc")).toBe("'abc");
    expect(stripFormulaQuote("'")).toBe("'");
    expect(stripFormulaQuote('=x')).toBe('=x');
  });
});

describe('CSV writing', () => {
  it('quotes every field holding CR, LF, a quote or the separator: a strict RFC 4180 parser reads the same rows', async () => {
    const rows: Cell[][] = [['code', 'name'], ...AWKWARD.map((name, i): Cell[] => [`p-${i}`, name])];
    const bytes = await written('csv', rows);
    const parsed = strictCsv(bytes);
    expect(parsed).toHaveLength(rows.length);
    expect(parsed.map(([code, name]) => [code, stripFormulaQuote(name)])).toEqual(rows);
    // Nothing bare: a line break only ever inside quotes, so no program starts a row in the middle of a field.
    const text = bytes.toString('utf8');
    expect(text).toContain('"Caneca\n(lava-louças)"');
    expect(text).toContain('"bare\rreturn"');
    expect(text).toContain(`"'\r=1+1"`);
    expect(text).toContain('"windows\r\nline end"');
  });

  it('quotes the separator it was given (semicolon), and text holding a comma needs no quotes then', async () => {
    const bytes = await written('csv', [['a;b', 'c,d', 'e\nf']], { delimiter: ';', bom: false });
    expect(bytes.toString('utf8')).toBe('"a;b";c,d;"e\nf"\r\n');
    expect(strictCsv(bytes, ';')).toEqual([['a;b', 'c,d', 'e\nf']]);
  });

  it("puts a ' before texts that start like a formula, and never before numbers, booleans or dates", async () => {
    const bytes = await written('csv', [
      ['=não é fórmula', '+1', '-desconto', '@x', '\tx', "'x", "'=x", 'Caneca'],
      [-5, 1.5, true, false, new Date(Date.UTC(2024, 0, 31)), new Date(Date.UTC(2024, 0, 31, 15, 4, 5)), null, ''],
    ]);
    expect(strictCsv(bytes)).toEqual([
      ["'=não é fórmula", "'+1", "'-desconto", "'@x", "'\tx", "''x", "''=x", 'Caneca'],
      ['-5', '1.5', 'true', 'false', '2024-01-31', '2024-01-31T15:04:05.000Z', '', ''],
    ]);
  });

  it('writes texts as they are when asked not to neutralize formulas', async () => {
    const bytes = await written('csv', [['=1+1', "'x", '-5']], { neutralizeFormulas: false, bom: false });
    expect(strictCsv(bytes)).toEqual([['=1+1', "'x", '-5']]);
  });
});

describe('XLSX writing', () => {
  it('writes typed cells: numbers, dates with a date or date-time format, booleans, and formula-like text as text', async () => {
    const day = new Date(Date.UTC(2024, 0, 31));
    const moment = new Date(Date.UTC(2024, 0, 31, 15, 4, 5, 120));
    const bytes = await written('xlsx', [
      ['number', 'negative', 'date', 'date-time', 'yes', 'no', 'text', 'empty'],
      [12.5, -5, day, moment, true, false, '=1+1', null],
    ]);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(bytes as unknown as ArrayBuffer);
    const row = wb.worksheets[0].getRow(2);
    const cell = (i: number) => row.getCell(i);
    const { ValueType } = ExcelJS;
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((i) => cell(i).type)).toEqual([
      ValueType.Number,
      ValueType.Number,
      ValueType.Date,
      ValueType.Date,
      ValueType.Boolean,
      ValueType.Boolean,
      ValueType.String,
      ValueType.Null,
    ]);
    expect([1, 2, 3, 4, 5, 6, 7].map((i) => cell(i).value)).toEqual([12.5, -5, day, moment, true, false, '=1+1']);
    expect(cell(3).numFmt).toBe('yyyy-mm-dd');
    expect(cell(4).numFmt).toBe('yyyy-mm-dd hh:mm:ss');
  });
});
