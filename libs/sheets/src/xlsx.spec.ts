import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import type { SheetRow } from './cells';
import { readRows, type SheetSource } from './read';
import { parseAttributeCell, parseBooleanCell, type CellAttribute } from './values';
import { cachedResults, formattedInteger } from './xlsx';

// Made by tools/sheets/make-fixtures.sh: LibreOffice Calc's own XLSX and CSV ("cell contents as
// shown") of one sheet, merchant.fods.
const FIXTURES = join(__dirname, '..', 'fixtures');

const source = (format: 'csv' | 'xlsx', bytes: Buffer): SheetSource => ({
  format,
  fileName: `merchant.${format}`,
  open: async () => Readable.from([bytes]),
});

async function rowsOf(s: SheetSource): Promise<SheetRow[]> {
  const rows: SheetRow[] = [];
  for await (const row of readRows(s, undefined)) rows.push(row);
  return rows;
}

const read = (format: 'csv' | 'xlsx') => rowsOf(source(format, readFileSync(join(FIXTURES, `merchant.${format}`))));
// Each fixture is read once for the whole file: a dozen tests compare the same rows, and reading
// both files for each of them made the last ones brush the time limit on a loaded machine.
const fixtures = new Map<string, ReturnType<typeof read>>();
const fixture = (format: 'csv' | 'xlsx') => {
  if (!fixtures.has(format)) fixtures.set(format, read(format));
  return fixtures.get(format)!;
};

/** A sparse array with values at the given indexes, as `formattedNumbers` holds them. */
const at = (entries: Record<number, number>): (number | undefined)[] => {
  const array: (number | undefined)[] = [];
  for (const [index, value] of Object.entries(entries)) array[Number(index)] = value;
  return array;
};

const utcDay = (iso: string) => new Date(`${iso}T00:00:00.000Z`);

/** An attribute of a type, with settings when given. */
const attribute = (type: CellAttribute['type'], more: Partial<CellAttribute> = {}): CellAttribute => ({
  key: type,
  type,
  localizable: false,
  ...more,
});

describe('XLSX formulas as LibreOffice Calc writes them', () => {
  it('reads each cached result: 0, negatives, FALSE, TRUE, empty and other text, dates; errors as empty', async () => {
    const [, zeros, others] = await fixture('xlsx');
    // code, stock =2-2, weight =0.5-0.5, active =1<0, price =1-1, note ="", discount 15%,
    // launch =DATE(2024;1;31), cep 00000-000, broken =1/0, margin 15,5%, sku @, gtin, ref "SKU-"0000
    expect(zeros.cells).toEqual([
      '00123',
      0,
      0,
      false,
      0,
      null,
      0.15,
      utcDay('2024-01-31'),
      '01310-100',
      null,
      0.155,
      42,
      '0012345678905',
      'SKU-0042',
    ]);
    expect(others.cells).toEqual([
      'P-2',
      -3,
      0.5,
      true,
      7,
      'a & b',
      0,
      utcDay('1899-12-30'),
      '00000-000',
      null,
      '00000',
      '-00042',
      7891234567890,
      'SKU-0006',
    ]);
  });

  it('keeps the number behind each cell it reads as the text its format shows', async () => {
    const [header, zeros, others] = await fixture('xlsx');
    expect(header.formattedNumbers).toBeUndefined();
    expect(zeros.formattedNumbers).toEqual(at({ 0: 123, 8: 1310100, 12: 12345678905, 13: 42 }));
    expect(others.formattedNumbers).toEqual(at({ 8: 0, 10: 0, 11: -42, 13: 6 }));
  });

  describe('gives the values its CSV of the same sheet gives', () => {
    const text = attribute('text');
    const number = attribute('number');
    // The attribute each column is imported into (the error column, J, is apart: see below).
    const columns: [string, CellAttribute][] = [
      ['A code', text],
      ['B stock', number],
      ['C weight', number],
      ['D active', attribute('boolean')],
      ['E price', attribute('price', { type_config: { currencies: ['BRL'] } })],
      ['F note', text],
      ['G discount', number],
      ['H launch', attribute('date')],
      ['I cep', text],
      ['K margin', number],
      ['L sku', text],
      ['M gtin', text],
      ['N ref', text],
    ];

    it.each(columns)('%s', async (column, target) => {
      const index = column.charCodeAt(0) - 65;
      const [xlsx, csv] = await Promise.all([fixture('xlsx'), fixture('csv')]);
      for (const row of [1, 2]) {
        const fromXlsx = parseAttributeCell(xlsx[row].cells[index], target, xlsx[row].formattedNumbers?.[index]);
        const fromCsv = parseAttributeCell(csv[row].cells[index], target);
        expect(fromCsv ?? {}).not.toHaveProperty('error');
        expect(fromXlsx).toEqual(fromCsv);
      }
    });

    it('except an error result, which the CSV writes as its text (#DIV/0!) and XLSX reading leaves empty', async () => {
      const [[, xlsx], [, csv]] = await Promise.all([fixture('xlsx'), fixture('csv')]);
      expect(xlsx.cells[9]).toBeNull();
      expect(csv.cells[9]).toBe('#DIV/0!');
    });
  });

  it('gives number targets the number behind a formatted cell and text targets the text shown', async () => {
    const [, zeros, others] = await fixture('xlsx');
    const cep = attribute('number');
    expect(parseAttributeCell(zeros.cells[8], cep, zeros.formattedNumbers?.[8])).toEqual({ value: 1310100 });
    expect(parseAttributeCell(zeros.cells[8], attribute('text'), zeros.formattedNumbers?.[8])).toEqual({
      value: '01310-100',
    });
    expect(parseAttributeCell(others.cells[13], cep, others.formattedNumbers?.[13])).toEqual({ value: 6 });
    expect(parseAttributeCell(others.cells[10], cep, others.formattedNumbers?.[10])).toEqual({ value: 0 });
    expect(parseBooleanCell(others.formattedNumbers?.[10] ?? others.cells[10])).toEqual({ value: false });
  });
});

describe('XLSX formulas as Excel writes them', () => {
  /** A workbook whose formulas' cached results are falsy, of every type, written the way Excel writes them. */
  async function workbook(): Promise<Buffer> {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Products');
    ws.getRow(1).values = ['code', 'zero', 'no', 'empty', 'yes', 'error', 'negative', 'launch', 'double'];
    ws.getRow(2).values = [
      'P-1',
      { formula: '1-1', result: 0 },
      { formula: '1<0', result: false },
      { formula: '""', result: '' },
      { formula: '1>0', result: true },
      { formula: '1/0', result: { error: '#DIV/0!' } },
      { formula: '-2', result: -2 },
      { formula: 'DATE(2024,1,31)', result: utcDay('2024-01-31') },
      // The master of a shared formula (exceljs's types leave out shareType and ref).
      { formula: 'B2*2', result: 0, shareType: 'shared', ref: 'I2:I3' } as ExcelJS.CellFormulaValue,
    ];
    ws.getCell('H2').numFmt = 'dd/mm/yyyy';
    ws.getRow(3).values = ['P-2', { formula: '0.5-0.5', result: 0 }];
    ws.getCell('I3').value = { sharedFormula: 'I2', result: 0 };
    return Buffer.from(await wb.xlsx.writeBuffer());
  }

  it('writes the cached results as Excel does (the test reads what it means to)', async () => {
    const zip = await JSZip.loadAsync(await workbook());
    const xml = await zip.file('xl/worksheets/sheet1.xml')!.async('string');
    expect(xml).toContain('<c r="B2"><f>1-1</f><v>0</v></c>');
    expect(xml).toContain('<c r="C2" t="b"><f>1&lt;0</f><v>0</v></c>');
    expect(xml).toContain('<c r="D2" t="str"><f>&quot;&quot;</f><v></v></c>');
    expect(xml).toContain('<c r="F2" t="e"><f>1/0</f><v>#DIV/0!</v></c>');
    expect(xml).toMatch(/<c r="I2"><f t="shared" ref="I2:I3" si="0">B2\*2<\/f><v>0<\/v><\/c>/);
    expect(xml).toContain('<c r="I3"><f t="shared" si="0"/><v>0</v></c>');
  });

  it('reads every cached result, shared formulas included', async () => {
    const rows = await rowsOf(source('xlsx', await workbook()));
    expect(rows.map((r) => r.cells)).toEqual([
      ['code', 'zero', 'no', 'empty', 'yes', 'error', 'negative', 'launch', 'double'],
      ['P-1', 0, false, null, true, null, -2, utcDay('2024-01-31'), 0],
      ['P-2', 0, null, null, null, null, null, null, 0],
    ]);
  });
});

describe('cachedResults', () => {
  const collect = async (chunks: (Buffer | string)[]): Promise<string> => {
    let out = '';
    for await (const part of cachedResults(Readable.from(chunks))) out += part;
    return out;
  };

  const xml =
    '<sheetData><row r="2"><c r="A2" t="str"><f>"Pão"&amp;"ção"</f><v>Pãoção</v></c>' +
    '<c r="B2" t="b"><f aca="false">1&lt;0</f><v>0</v></c><c r="C2"><f t="shared" si="0"/><v>0</v></c>' +
    '<c r="D2"><f>A1>0</f><v>1</v></c></row></sheetData><autoFilter ref="A1:D2"><filterColumn colId="0"/></autoFilter>' +
    '<headerFooter><firstFooter>ß</firstFooter></headerFooter>';
  const plain =
    '<sheetData><row r="2"><c r="A2" t="str"><v>Pãoção</v></c>' +
    '<c r="B2" t="b"><v>0</v></c><c r="C2"><v>0</v></c>' +
    '<c r="D2"><v>1</v></c></row></sheetData><autoFilter ref="A1:D2"><filterColumn colId="0"/></autoFilter>' +
    '<headerFooter><firstFooter>ß</firstFooter></headerFooter>';

  it('drops formula elements and keeps everything else, wherever the chunks are cut (characters too)', async () => {
    const bytes = Buffer.from(xml);
    for (let cut = 0; cut <= bytes.length; cut++) {
      expect(await collect([bytes.subarray(0, cut), bytes.subarray(cut)])).toBe(plain);
    }
    const bytewise = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
    expect(await collect(bytewise)).toBe(plain);
  });

  it('lets through a formula element that never ends, past a megabyte', async () => {
    const broken = `<c r="A1"><f>${'x'.repeat(1_100_000)}`;
    const chunks = Array.from({ length: 20 }, (_, i) => broken.slice(i * 60_000, (i + 1) * 60_000));
    expect(await collect(chunks)).toBe(broken);
  });
});

describe('XLSX text', () => {
  it('keeps characters whole where exceljs cuts sharedStrings.xml into chunks', async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Products');
    // Two-byte characters almost everywhere: nearly every chunk boundary falls inside one.
    const names = Array.from({ length: 3_000 }, (_, i) => `${'çãõé'.repeat(25)} ${i}`);
    names.forEach((name, i) => (ws.getRow(i + 1).values = [name]));
    const rows = await rowsOf(source('xlsx', Buffer.from(await wb.xlsx.writeBuffer())));
    expect(rows.map((r) => r.cells[0])).toEqual(names);
  });
});

describe('formattedInteger', () => {
  it.each([
    [123, '00000', '00123'],
    [0, '00000', '00000'],
    [-42, '00000', '-00042'],
    [1310100, '00000\\-000', '01310-100'],
    [1310100, '00000-000', '01310-100'],
    [1234567, '000-000', '1234-567'],
    [42, '"SKU-"0000', 'SKU-0042'],
    [42, '[$R$-416] 0000', 'R$ 0042'],
    [7, '[Red]00;[Blue]\\(00\\)', '07'],
    [-7, '[Red]00;[Blue]\\(00\\)', '(07)'],
    [0, '00;-00;"none"', 'none'],
    [12345678905, '0000000000000', '0012345678905'],
    [12345678901, '000\\.000\\.000\\-00', '123.456.789-01'],
    [1234, '#00000', '01234'],
  ])('shows %p formatted %j as %j', (value, format, shown) => expect(formattedInteger(value, format)).toBe(shown));

  it.each([
    [123, undefined],
    [123, 'General'],
    [123, '@'],
    [123, '0'],
    [123, '#'],
    [0, '#'],
    [0, '0;-0;;@'],
    [1234, '#,##0'],
    [12, '0.00'],
    [0.15, '0%'],
    [12.5, '00000'],
    [2 ** 60, '00000'],
    [45322, 'yyyy-mm-dd'],
    [5, '0_)'],
    [5, '[>100]00000'],
    [5, '"unclosed 00000'],
  ])('leaves %p formatted %j as the number', (value, format) =>
    expect(formattedInteger(value, format)).toBeUndefined(),
  );
});
