import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { SheetRow } from './cells';
import { odsDate, odsRows, odsTime } from './ods';
import { readRows, type SheetSource } from './read';
import { empty, ods, row, table, text, unused, zip } from './testing/ods.fixtures';
import type { XlsxFacts } from './xlsx';

const FIXTURES = join(__dirname, '..', 'fixtures');
const fixture = (name: string) => readFileSync(join(FIXTURES, name));

async function rowsOf(bytes: Buffer, worksheetId?: string, facts?: XlsxFacts): Promise<SheetRow[]> {
  const rows: SheetRow[] = [];
  for await (const r of odsRows(Readable.from([bytes]), worksheetId, facts)) rows.push(r);
  return rows;
}

const source = (format: 'ods' | 'xlsx', bytes: Buffer): SheetSource => ({
  format,
  open: async () => Readable.from([bytes]),
});

describe('ODS', () => {
  it('reads the LibreOffice fixture as its XLSX twin is read: rows numbered as in the sheet, cells typed alike', async () => {
    const odsFile = fixture('products.ods');
    const xlsxFile = fixture('products.xlsx');
    for (const id of ['1', '2']) {
      const fromOds = [];
      for await (const r of readRows(source('ods', odsFile), id)) fromOds.push(r);
      const fromXlsx = [];
      for await (const r of readRows(source('xlsx', xlsxFile), id)) fromXlsx.push(r);
      expect(fromOds).toEqual(fromXlsx);
    }
    expect(await rowsOf(odsFile, '2')).toEqual([
      { number: 1, cells: ['Spring catalogue 2024'] },
      {
        number: 3,
        cells: [
          'code',
          'name',
          'price',
          'discount',
          'cost',
          'launch',
          'updated',
          'enabled',
          'description',
          'size',
          null,
          'notes',
        ],
      },
      {
        number: 4,
        cells: [
          'P-1',
          'Cup',
          12.5,
          0.15,
          3.2,
          new Date('2024-01-31T00:00:00Z'),
          new Date('2024-02-01T10:20:30Z'),
          true,
          'Big   cup',
          10,
          10,
        ],
      },
      {
        number: 5,
        cells: [
          'P-2',
          'Mug',
          0,
          0,
          1234.5,
          new Date('2023-12-01T00:00:00Z'),
          new Date('2023-12-01T23:59:00Z'),
          false,
          'Line onetabbed\nLine twoafter a break',
          8,
          9.5,
          'fragile',
        ],
      },
      { number: 7, cells: ['P-3', 'Pão de açúcar', 1.99, null, null, null, null, null, '“Quoted”, with a comma'] },
    ]);
  });

  it('lists worksheets by their order and reads the one asked for, or the first holding a cell, with its merges', async () => {
    const file = ods(
      table('Empty', unused(0, 0)),
      table('Notes', row(text('Read me')) + unused(1, 1)),
      table(
        'Data',
        row(
          '<table:table-cell office:value-type="string" table:number-columns-spanned="2" table:number-rows-spanned="2"><text:p>Size</text:p></table:table-cell>' +
            '<table:covered-table-cell/>' +
            text('code'),
        ) +
          row('<table:covered-table-cell table:number-columns-repeated="2"/>' + text('A')) +
          unused(3, 2),
      ),
    );
    const first: XlsxFacts = { worksheets: [], merges: [] };
    expect(await rowsOf(file, undefined, first)).toEqual([{ number: 1, cells: ['Read me'] }]);
    expect(first.worksheet).toEqual({ id: '2', name: 'Notes' });
    const data: XlsxFacts = { worksheets: [], merges: [] };
    expect(await rowsOf(file, '3', data)).toEqual([
      { number: 1, cells: ['Size', null, 'code'] },
      { number: 2, cells: [null, null, 'A'] },
    ]);
    expect(data).toMatchObject({
      worksheets: [
        { id: '1', name: 'Empty' },
        { id: '2', name: 'Notes' },
        { id: '3', name: 'Data' },
      ],
      worksheet: { id: '3', name: 'Data' },
      merges: [{ top: 1, left: 0, bottom: 2, right: 1 }],
    });
    // Every worksheet in one pass: `worksheet` names the one each row is on.
    const every: XlsxFacts = { worksheets: [], merges: [], every: true };
    const on: string[] = [];
    for await (const r of odsRows(Readable.from([file]), undefined, every))
      on.push(`${every.worksheet!.name}:${r.number}`);
    expect(on).toEqual(['Notes:1', 'Data:1', 'Data:2']);
    expect(every.worksheets.map((w) => w.id)).toEqual(['1', '2', '3']);
    expect(await rowsOf(file, '9')).toEqual([]);
  });

  it('types cells by office:value-type and reads text as LibreOffice writes it', async () => {
    const cell = (attributes: string, content = '') => `<table:table-cell ${attributes}>${content}</table:table-cell>`;
    const rows = await rowsOf(
      ods(
        table(
          'S',
          row(
            cell('office:value-type="float" office:value="-1.5E-3"', '<text:p>-0.0015</text:p>') +
              cell('office:value-type="percentage" office:value="0.125"', '<text:p>12.5%</text:p>') +
              cell(
                'office:value-type="currency" office:currency="BRL" office:value="1234.5"',
                '<text:p>R$ 1.234,50</text:p>',
              ) +
              cell('office:value-type="boolean" office:boolean-value="true"', '<text:p>VERDADEIRO</text:p>') +
              cell('office:value-type="date" office:date-value="2024-02-29"', '<text:p>29/02/24</text:p>') +
              cell(
                'office:value-type="date" office:date-value="2024-02-29T23:05:01.5"',
                '<text:p>29/02/24 23:05</text:p>',
              ) +
              cell('office:value-type="time" office:time-value="PT10H20M30S"', '<text:p>10:20:30</text:p>') +
              cell(
                'table:formula="of:=1/0" office:value-type="float" office:value="0" calcext:value-type="error"',
                '<text:p>#DIV/0!</text:p>',
              ) +
              cell('table:formula="of:=1-1" office:value-type="float" office:value="0"', '<text:p>0</text:p>') +
              cell('office:value-type="boolean" office:boolean-value="false"', '<text:p>FALSE</text:p>'),
          ) +
            row(
              cell(
                'office:value-type="string"',
                '<text:p><text:s/>Big<text:s text:c="3"/>cup</text:p><text:p>second <text:span>paragraph</text:span>\n   wrapped</text:p>',
              ) +
                cell('office:value-type="string"', '<text:p>a<text:tab/>b<text:line-break/>c</text:p>') +
                cell(
                  'office:value-type="string"',
                  '<office:annotation><dc:creator>Ana</dc:creator><text:p>a comment</text:p></office:annotation><text:p>shown</text:p>',
                ) +
                cell('office:value-type="string" office:string-value="the value"', '<text:p>the text</text:p>') +
                cell('', '<text:p>no type</text:p>') +
                cell('office:value-type="string"', '<text:p/>') +
                cell('office:value-type="string"', '<text:p>x &amp; <![CDATA[<y>]]></text:p>'),
            ),
        ),
      ),
    );
    expect(rows).toEqual([
      {
        number: 1,
        cells: [
          -0.0015,
          0.125,
          1234.5,
          true,
          new Date('2024-02-29T00:00:00Z'),
          new Date('2024-02-29T23:05:01.500Z'),
          new Date('1899-12-30T10:20:30Z'),
          null,
          0,
          false,
        ],
      },
      {
        number: 2,
        cells: [' Big   cup\nsecond paragraph wrapped', 'a\tb\nc', 'shown', 'the value', 'no type', null, 'x & <y>'],
      },
    ]);
  });

  it('reads a whole number its format pads with zeros as the sheet shows it, keeping the number, as XLSX does', async () => {
    const float = (value: string, shown: string, repeat = 1) =>
      `<table:table-cell office:value-type="float" office:value="${value}" table:number-columns-repeated="${repeat}"><text:p>${shown}</text:p></table:table-cell>`;
    const rows = await rowsOf(
      ods(
        table(
          'S',
          row(
            float('123', '00123') +
              float('1310100', '01310-100') +
              float('42', 'SKU 0042', 2) +
              float('1234', '1.234') +
              float('7', '7') +
              float('12.5', '0012,50') +
              float('0', '000'),
          ),
        ),
      ),
    );
    expect(rows).toEqual([
      {
        number: 1,
        cells: ['00123', '01310-100', 'SKU 0042', 'SKU 0042', 1234, 7, 12.5, '000'],
        formattedNumbers: [123, 1310100, 42, 42, undefined, undefined, undefined, 0],
      },
    ]);
  });

  it('expands repeated cells and rows that hold values, and never lays out empty repeats', async () => {
    const rows = await rowsOf(
      ods(
        table(
          'S',
          row(text('code') + empty(1_000) + text('far')) +
            row(
              empty(2) +
                '<table:table-cell office:value-type="float" office:value="7" table:number-columns-repeated="3"/>' +
                empty(16_379),
              3,
            ) +
            row(empty(16_384), 1_000_000) +
            row(text('last')) +
            unused(1, 1_000_005),
        ),
        table('Another', unused(0, 0)),
      ),
    );
    // A million empty rows and thousands of empty cells are counted, never laid out: only rows that hold a value come back.
    expect(rows.map((r) => r.number)).toEqual([1, 2, 3, 4, 1_000_005]);
    expect(rows[0].cells).toHaveLength(1_002);
    expect(rows[0].cells[1_001]).toBe('far');
    expect(rows[1]).toEqual({ number: 2, cells: [null, null, 7, 7, 7] });
    expect(rows[3]).toEqual({ number: 4, cells: [null, null, 7, 7, 7] });
    expect(rows[1].cells).not.toBe(rows[2].cells); // each repeat its own cells
    expect(rows[4]).toEqual({ number: 1_000_005, cells: ['last'] });
  });

  it('matches elements by their namespaces, whatever prefixes the document binds them to', async () => {
    const content =
      '<?xml version="1.0" encoding="UTF-8"?><o:document-content xmlns:o="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ' +
      'xmlns:t="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:x="urn:oasis:names:tc:opendocument:xmlns:text:1.0">' +
      '<o:body><o:spreadsheet><t:table t:name="Mine"><t:table-row><t:table-cell o:value-type="float" o:value="2"><x:p>2</x:p></t:table-cell>' +
      '<t:table-cell o:value-type="string"><x:p>a<x:s x:c="2"/>b</x:p></t:table-cell></t:table-row></t:table></o:spreadsheet></o:body></o:document-content>';
    const file = zip([
      ['mimetype', 'application/vnd.oasis.opendocument.spreadsheet'],
      ['content.xml', content],
    ]);
    const facts: XlsxFacts = { worksheets: [], merges: [] };
    expect(await rowsOf(file, undefined, facts)).toEqual([{ number: 1, cells: [2, 'a  b'] }]);
    expect(facts.worksheet).toEqual({ id: '1', name: 'Mine' });
  });

  it('refuses a value past the last column or row a spreadsheet has, and a package without content.xml', async () => {
    await expect(rowsOf(ods(table('S', row(empty(20_000) + text('x')))))).rejects.toThrow(/past column 16,384/);
    await expect(rowsOf(ods(table('S', row(empty(), 2_000_000) + row(text('x')))))).rejects.toThrow(
      /past row 1,048,576/,
    );
    const noContent = zip([
      ['mimetype', 'application/vnd.oasis.opendocument.spreadsheet'],
      ['styles.xml', '<x/>'],
    ]);
    await expect(rowsOf(noContent)).rejects.toThrow(/no content.xml/);
    const broken = ods(table('S', row(text('x'))))
      .toString('latin1')
      .replace('content.xml', 'content.xmL');
    await expect(rowsOf(Buffer.from(broken, 'latin1'))).rejects.toThrow(/no content.xml/);
  });

  it('stops reading once the worksheet asked for is over', async () => {
    // A second worksheet that is not XML, far enough into content.xml to be in a later chunk: never
    // parsed when the first is asked for.
    const many = Array.from({ length: 5_000 }, (_, i) => row(text(`row ${i}`))).join('');
    const file = ods(table('S', many) + `<table:table table:name="T">${many}<oops</table:table>`);
    expect(await rowsOf(file, '1')).toHaveLength(5_000);
    await expect(rowsOf(file, '2')).rejects.toThrow();
  });
});

describe('odsDate and odsTime', () => {
  it('read dates as the XLSX reader returns them: UTC midnight, a wall-clock time in UTC, an offset when named', () => {
    expect(odsDate('2024-01-31')).toEqual(new Date('2024-01-31T00:00:00Z'));
    expect(odsDate('0099-03-01')?.toISOString()).toBe('0099-03-01T00:00:00.000Z');
    expect(odsDate('2024-01-31T10:20:30.123456789')).toEqual(new Date('2024-01-31T10:20:30.123Z'));
    expect(odsDate('2024-01-31T10:20:30-03:00')).toEqual(new Date('2024-01-31T13:20:30Z'));
    expect(odsDate('31/01/2024')).toBeUndefined();
    expect(odsTime('PT36H00M00S')).toEqual(new Date('1899-12-31T12:00:00Z'));
    expect(odsTime('P')).toBeUndefined();
  });
});
