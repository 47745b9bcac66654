import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { PassThrough } from 'node:stream';
import ExcelJS from 'exceljs';
import iconv from 'iconv-lite';
import { ValidationError } from '@pim/errors';
import { csvDialect } from './csv';
import type { Cell } from './cells';
import { detectFormat, type SheetReadFormat } from './detect';
import { detectHeaderRow, headersOf, inspectSheet, readRows, type SheetSource } from './read';
import { zip as zipOf } from './testing/ods.fixtures';
import { createSheetWriter } from './write';

const source = (format: SheetReadFormat, bytes: Buffer, fileName = `file.${format}`): SheetSource => ({
  format,
  fileName,
  open: async () => Readable.from([bytes]),
});

const rowsOf = async (s: SheetSource, worksheetId?: string, fromRow?: number) => {
  const rows = [];
  for await (const r of readRows(s, worksheetId, { fromRow })) rows.push(r);
  return rows;
};

/** A workbook with a notes sheet and a products sheet whose headers are on row 3 (title above, merged header over D:E). */
async function workbook(): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const notes = wb.addWorksheet('Notes');
  notes.addRow(['Read me first']);
  const ws = wb.addWorksheet('Products');
  ws.getCell('A1').value = 'Spring catalogue';
  ws.getRow(3).values = ['SKU', 'Name', 'Price', 'Size', null, 'Launch'];
  ws.mergeCells('D3:E3');
  ws.getRow(4).values = [
    'P-1',
    'Cup',
    { formula: 'B1*0+12.5', result: 12.5 },
    10,
    'cm',
    new Date(Date.UTC(2024, 0, 31)),
  ];
  ws.getRow(6).values = ['P-2', { richText: [{ text: 'Big ' }, { text: 'mug' }] }, 3, null, null, null];
  ws.getRow(7).values = [' ', null];
  return Buffer.from(await wb.xlsx.writeBuffer());
}

describe('detectFormat', () => {
  it('tells XLSX (a ZIP) and CSV (text) apart and refuses what is neither', () => {
    expect(detectFormat(Buffer.from('PK\u0003\u0004rest'), 'a.xlsx')).toBe('xlsx');
    expect(detectFormat(Buffer.from('code;name\nA;B\n'))).toBe('csv');
    expect(detectFormat(Buffer.from([0xff, 0xfe, 0x41, 0x00]))).toBe('csv');
    expect(() => detectFormat(Buffer.from('%PDF-1.7 ...'), 'x.pdf')).toThrow(/is a PDF document, not a spreadsheet/);
    expect(() => detectFormat(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0]))).toThrow(
      /Excel 97-2003/,
    );
    expect(() => detectFormat(Buffer.from([1, 2, 3, 0, 5]))).toThrow(ValidationError);
  });
});

describe('CSV', () => {
  it('tells the delimiter and the encoding (UTF-8 with or without BOM, Latin-1)', () => {
    expect(csvDialect(Buffer.from('code;name;price\nA;Água;1,5\n'))).toEqual({ encoding: 'utf8', delimiter: ';' });
    expect(csvDialect(Buffer.from('code,name\n"A,1",B\n'))).toEqual({ encoding: 'utf8', delimiter: ',' });
    expect(csvDialect(iconv.encode('code;nome\nA;Pão de açúcar\n', 'win1252'))).toEqual({
      encoding: 'win1252',
      delimiter: ';',
    });
    expect(csvDialect(Buffer.from('code\tname\nA\tB\n'))).toEqual({ encoding: 'utf8', delimiter: '\t' });
  });

  it('reads Latin-1 and BOM files into the same text, quoted fields across lines as one row', async () => {
    const text = 'code;name\r\nA;"Pão\nde açúcar"\r\n\r\nB;Café\r\n';
    const latin = await rowsOf(source('csv', iconv.encode(text, 'win1252')));
    const bom = await rowsOf(source('csv', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])));
    expect(latin).toEqual(bom);
    expect(bom).toEqual([
      { number: 1, cells: ['code', 'name'] },
      { number: 2, cells: ['A', 'Pão\nde açúcar'] },
      { number: 4, cells: ['B', 'Café'] },
    ]);
    expect((await rowsOf(source('csv', Buffer.from(text)), undefined, 3)).map((r) => r.number)).toEqual([4]);
  });

  it('inspects a CSV as one worksheet with a detected header row and counts', async () => {
    const csv = 'Product list,,\n,,\nSKU,Name,Price\nA,Cup,1.5\nB,,2\n,,\n';
    const summary = await inspectSheet(source('csv', Buffer.from(csv), 'my products.csv'), {});
    expect(summary).toEqual({
      worksheets: [{ id: '1', name: 'my products', header_row: 3, rows_count: 2 }],
      worksheet: { id: '1', name: 'my products' },
      header_row: 3,
      headers: [
        { column: 'A', label: 'SKU' },
        { column: 'B', label: 'Name' },
        { column: 'C', label: 'Price' },
      ],
      columns_count: 3,
      rows_count: 2,
    });
    const chosen = await inspectSheet(source('csv', Buffer.from(csv)), { headerRow: 1 });
    expect(chosen).toMatchObject({ header_row: 1, headers: [{ column: 'A', label: 'Product list' }], rows_count: 3 });
    await expect(inspectSheet(source('csv', Buffer.from(csv)), { headerRow: 2 })).rejects.toThrow(/row 2 .* is empty/);
  });
});

describe('columns whose header cell is empty', () => {
  it('lists one that a row below fills, left of the last label, by its letter with an empty label', () => {
    const header = { number: 3, cells: ['code', null, 'size', null, null, 'notes', null] };
    // B is filled below, E only above (a title), G right of the last label; D is under the merged C:D.
    const lastRows = [9, 9, 9, 9, 2, 9, 9];
    expect(headersOf(header, [{ top: 3, left: 2, bottom: 3, right: 3 }], lastRows)).toEqual([
      { column: 'A', label: 'code' },
      { column: 'B', label: '' },
      { column: 'C', label: 'size' },
      { column: 'D', label: 'size' },
      { column: 'F', label: 'notes' },
    ]);
    // Without rows below, only the labels.
    expect(headersOf(header, [])).toEqual([
      { column: 'A', label: 'code' },
      { column: 'C', label: 'size' },
      { column: 'F', label: 'notes' },
    ]);
  });

  it('lists them alike in a CSV and in an XLSX: a blank header above data, not a spacer column or a note beside the table', async () => {
    const rows: Cell[][] = [
      ['Spring catalogue'],
      [],
      ['code', 'width', null, null, 'notes'],
      ['A', 10, 12, null, 'fragile', 'see supplier'],
      ['B', 8, 9.5],
    ];
    const wb = new ExcelJS.Workbook();
    wb.addWorksheet('Products').addRows(rows);
    const xlsx = Buffer.from(await wb.xlsx.writeBuffer());
    const csv = rows.map((r) => r.map((c) => c ?? '').join(',')).join('\n');
    const headers = [
      { column: 'A', label: 'code' },
      { column: 'B', label: 'width' },
      { column: 'C', label: '' },
      { column: 'E', label: 'notes' },
    ];
    for (const s of [source('xlsx', xlsx), source('csv', Buffer.from(csv))])
      expect(await inspectSheet(s, {})).toMatchObject({ header_row: 3, headers, columns_count: 4, rows_count: 2 });
  });

  it("lists K of LibreOffice's CSV of the typed sheet, the second column under the title merged over J:K", async () => {
    const summary = await inspectSheet(
      source('csv', readFileSync(join(__dirname, '..', 'fixtures', 'products.csv')), 'products.csv'),
      {},
    );
    expect(summary).toMatchObject({ header_row: 3, columns_count: 12, rows_count: 3 });
    expect(summary.headers.slice(9)).toEqual([
      { column: 'J', label: 'size' },
      { column: 'K', label: '' },
      { column: 'L', label: 'notes' },
    ]);
  });
});

describe('XLSX', () => {
  it('lists the worksheets with their header rows and counts, and reads the product table, or the one asked for', async () => {
    const bytes = await workbook();
    const chosen = await inspectSheet(source('xlsx', bytes), {});
    expect(chosen.worksheets).toEqual([
      { id: '1', name: 'Notes', header_row: 1, rows_count: 0 },
      { id: '2', name: 'Products', header_row: 3, rows_count: 2 },
    ]);
    expect(chosen).toMatchObject({ worksheet: { id: '2', name: 'Products' }, header_row: 3, rows_count: 2 });
    const notes = await inspectSheet(source('xlsx', bytes), { worksheetId: '1' });
    expect(notes).toMatchObject({
      worksheets: chosen.worksheets,
      worksheet: { id: '1', name: 'Notes' },
      header_row: 1,
    });
    const products = await inspectSheet(source('xlsx', bytes), { worksheetId: '2' });
    expect(products).toMatchObject({
      worksheet: { id: '2', name: 'Products' },
      header_row: 3,
      headers: [
        { column: 'A', label: 'SKU' },
        { column: 'B', label: 'Name' },
        { column: 'C', label: 'Price' },
        { column: 'D', label: 'Size' },
        { column: 'E', label: 'Size' },
        { column: 'F', label: 'Launch' },
      ],
      columns_count: 6,
      rows_count: 2,
    });
    await expect(inspectSheet(source('xlsx', bytes), { worksheetId: '9' })).rejects.toThrow(/no worksheet with id '9'/);
  });

  it('gives formulas their cached values, rich text as text, dates as dates, and skips empty rows', async () => {
    const rows = await rowsOf(source('xlsx', await workbook()), '2', 4);
    expect(rows).toEqual([
      { number: 4, cells: ['P-1', 'Cup', 12.5, 10, 'cm', new Date(Date.UTC(2024, 0, 31))] },
      { number: 6, cells: ['P-2', 'Big mug', 3] },
    ]);
  });

  it('refuses a ZIP that is not a workbook', async () => {
    const zip = Buffer.from('PK\u0003\u0004' + 'x'.repeat(100));
    await expect(inspectSheet(source('xlsx', zip), {})).rejects.toThrow();
    const csvs = zipOf([['products.csv', 'code,name\nA,B\n']]);
    await expect(inspectSheet(source('xlsx', csvs, 'products.zip'), {})).rejects.toThrow(
      "'products.zip' is a ZIP archive with no worksheet in it, not a spreadsheet",
    );
  });
});

describe('the default worksheet', () => {
  const sheets = async (...worksheets: [name: string, rows: Cell[][]][]) => {
    const wb = new ExcelJS.Workbook();
    for (const [name, rows] of worksheets) wb.addWorksheet(name).addRows(rows);
    return Buffer.from(await wb.xlsx.writeBuffer());
  };
  const chosen = async (bytes: Buffer) => (await inspectSheet(source('xlsx', bytes), {})).worksheet.name;

  it('is the product table, not an instructions page before it (LibreOffice files, ODS and XLSX alike)', async () => {
    for (const [format, file] of [
      ['ods', 'products.ods'],
      ['xlsx', 'products.xlsx'],
    ] as const) {
      const summary = await inspectSheet(source(format, readFileSync(join(__dirname, '..', 'fixtures', file))), {});
      expect(summary).toMatchObject({
        worksheets: [
          { id: '1', name: 'Read me', header_row: 1, rows_count: 1 },
          { id: '2', name: 'Products', header_row: 3, rows_count: 3 },
        ],
        worksheet: { id: '2', name: 'Products' },
        header_row: 3,
        columns_count: 12,
        rows_count: 3,
      });
      expect(summary.headers.slice(9)).toEqual([
        { column: 'J', label: 'size' },
        { column: 'K', label: 'size' },
        { column: 'L', label: 'notes' },
      ]);
    }
  });

  it('has rows below its header, then the most labels naming product fields, then the most text headers, then rows', async () => {
    const instructions: Cell[][] = [['Fill one row per product.'], ['Codes are unique.'], ['Prices in BRL.']];
    const products: Cell[][] = [
      ['Código', 'Nome do produto', 'Preço'],
      ['A-1', 'Cup', 2],
    ];
    // Many columns of option lists lose to fewer that name product fields.
    const lists: Cell[][] = [
      ['Colors', 'Sizes', 'Materials', 'Finishes', 'Seasons'],
      ['red', 'S', 'wood', 'matte', 'spring'],
    ];
    expect(await chosen(await sheets(['Help', instructions], ['Lists', lists], ['Products', products]))).toBe(
      'Products',
    );
    // No field names: the widest header row wins over an instructions page.
    expect(await chosen(await sheets(['Help', instructions], ['Lists', lists]))).toBe('Lists');
    // A header with no rows below it is passed over while another worksheet has some.
    expect(await chosen(await sheets(['Template', [['code', 'name', 'price', 'brand']]], ['Help', instructions]))).toBe(
      'Help',
    );
    // A tie keeps the earlier worksheet.
    expect(await chosen(await sheets(['A', products], ['B', products]))).toBe('A');
  });

  it('takes a header row named for it, and any worksheet named', async () => {
    const bytes = readFileSync(join(__dirname, '..', 'fixtures', 'products.ods'));
    expect(await inspectSheet(source('ods', bytes), { headerRow: 4 })).toMatchObject({
      worksheet: { id: '2', name: 'Products' },
      header_row: 4,
      rows_count: 2,
    });
    expect(await inspectSheet(source('ods', bytes), { worksheetId: '1', headerRow: 3 })).toMatchObject({
      worksheet: { id: '1', name: 'Read me' },
      headers: [{ column: 'A', label: 'Prices in BRL; dates as YYYY-MM-DD.' }],
      rows_count: 0,
    });
    await expect(inspectSheet(source('ods', bytes), { worksheetId: '3' })).rejects.toMatchObject({
      message: "The file has no worksheet with id '3'",
      solution: 'Use one of the ids in worksheets: 1 (Read me), 2 (Products)',
    });
  });
});

describe('detectHeaderRow', () => {
  it('passes over titles and notes to the first all-text row that fills most columns', () => {
    expect(
      detectHeaderRow([
        { number: 1, cells: ['Report'] },
        { number: 2, cells: ['Made', new Date()] },
        { number: 4, cells: ['code', 'name', 'price'] },
        { number: 5, cells: ['A', 'B', 1] },
      ]),
    ).toBe(4);
    expect(detectHeaderRow([{ number: 2, cells: [1, 2] }])).toBe(2);
    expect(detectHeaderRow([])).toBeUndefined();
  });
});

describe('createSheetWriter', () => {
  const collect = (out: PassThrough) => {
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    return () => Buffer.concat(chunks);
  };

  it('writes CSV with a BOM and RFC 4180 quoting, read back as written', async () => {
    const out = new PassThrough();
    const bytes = collect(out);
    const w = createSheetWriter('csv', out);
    await w.write(['code', 'name', 'Problems']);
    await w.write(['A', 'Say "hi", then\nleave', 'B (Name): is empty']);
    await w.write(['B', null, 1.5]);
    await w.write(['C', true, false]);
    await w.end();
    expect(bytes().subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect((await rowsOf(source('csv', bytes()))).map((r) => r.cells)).toEqual([
      ['code', 'name', 'Problems'],
      ['A', 'Say "hi", then\nleave', 'B (Name): is empty'],
      ['B', null, '1.5'],
      ['C', 'true', 'false'],
    ]);
  });

  it.each(['csv', 'xlsx'] as const)(
    'stops a %s writer with an error, not a wait, when its output closes early (storage refused more)',
    async (format) => {
      const out = new PassThrough({ highWaterMark: 64 }); // never read: full at once
      const w = createSheetWriter(format, out);
      const writing = (async () => {
        for (let i = 0; i < 100_000; i++) {
          await w.write([`row ${i}`, 'x'.repeat(200)]);
          // Rows come in batches from the network: the event loop turns between them.
          if (i % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      setTimeout(() => out.destroy(), 50);
      await expect(writing).rejects.toThrow(/closed before the sheet was written/);
    },
  );

  it('writes XLSX that reads back with its types', async () => {
    const out = new PassThrough();
    const bytes = collect(out);
    const w = createSheetWriter('xlsx', out, { worksheetName: 'Errors' });
    const day = new Date(Date.UTC(2024, 4, 1));
    await w.write(['code', 'price', 'launch', 'ok']);
    await w.write(['A', 12.5, day, true]);
    await w.end();
    const s = source('xlsx', bytes());
    expect(await inspectSheet(s, {})).toMatchObject({ worksheets: [{ id: '1', name: 'Errors' }], rows_count: 1 });
    expect((await rowsOf(s)).map((r) => r.cells)).toEqual([
      ['code', 'price', 'launch', 'ok'],
      ['A', 12.5, day, true],
    ]);
  });
});
