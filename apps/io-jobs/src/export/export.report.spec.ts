import { PassThrough } from 'node:stream';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { ValidationError } from '@pim/errors';
import type { products as ppb, relations as rpb } from '@pim/contracts';
import { EVERY_TYPE, GOOD_VALUES } from '@pim/testing';
import type { AttributeType } from '@pim/resources';
import { createSheetWriter, stripFormulaQuote } from '@pim/sheets';
import type { ImportAttribute, NamedCollection, NamedRecord } from '../links/catalog.link';
import { XLSX_CELL_MAX, attributeCell, dateCell, fitCells, instantCell, moneyAmount } from './export.cells';
import { selectionOf } from './export.query';
import { buildReport, type BatchContext } from './export.report';

const ATTRIBUTES = new Map<string, ImportAttribute>(
  Object.entries(EVERY_TYPE).map(([key, spec]) => [
    key,
    {
      id: `id-${key}`,
      key,
      type: spec.type as AttributeType,
      localizable: key === 'a_textarea',
      name: { en: `The ${key}`, pt: `O ${key}` },
    },
  ]),
);

const NAMES: Record<string, NamedRecord> = {
  b1: { id: 'b1', code: 'acme', name: { en: 'Acme' } },
  c1: { id: 'c1', code: 'kitchen', name: { en: 'Kitchen' }, category_tree_id: 't1' },
  c2: { id: 'c2', code: 'garden', name: { pt: 'Jardim', en: 'Garden' }, category_tree_id: 't1' },
  t1: { id: 't1', code: 'main', name: { en: 'Main' } },
  s1: { id: 's1', code: 'install', name: { en: 'Installation' } },
};

const product = (over: Partial<ppb.Product> = {}): ppb.Product =>
  ({
    id: 'p1',
    code: 'mug-1',
    type: 'simple',
    enabled: true,
    name: { pt: 'Caneca', en: 'Mug' },
    description: {},
    brand_id: 'b1',
    categories: ['c1', 'gone'],
    category_trees: [],
    catalogs: [],
    attribute_groups: [],
    tags: ['a', 'b'],
    images: [],
    published: false,
    publishments: [],
    completeness: { pt: 100 },
    attributes: GOOD_VALUES,
    version: 1,
    created_at: '2026-11-25T10:00:00.000Z',
    updated_at: '2026-11-25T10:00:00.000Z',
    ...over,
  }) as ppb.Product;

const context = (relations: rpb.ProductRelation[] = []): BatchContext => ({
  names: (_c: NamedCollection, id: string | undefined) => (id ? NAMES[id] : undefined),
  relationsOf: () => relations,
  attributes: ATTRIBUTES,
  fail: { fields: 0 },
});

const inputs = (over: Partial<Parameters<typeof buildReport>[1]> = {}) => ({
  headers: [],
  attributeKeys: Object.keys(GOOD_VALUES),
  attributes: ATTRIBUTES,
  languages: ['en', 'pt'],
  ...over,
});

describe('export cells', () => {
  it('writes each attribute type so that an import reads the same value back', () => {
    const fail = { fields: 0 };
    const cell = (key: string, language?: string) =>
      attributeCell(GOOD_VALUES[key], ATTRIBUTES.get(key), language, fail);
    expect(cell('a_text')).toBe('abc');
    expect(cell('a_number')).toBe(12);
    expect(cell('a_boolean')).toBe(false);
    expect(cell('a_date')).toEqual(new Date(Date.UTC(2024, 0, 31)));
    expect(attributeCell('2024-01-31T15:00:00.000Z', ATTRIBUTES.get('a_datetime'), undefined, fail)).toEqual({
      instant: new Date(Date.UTC(2024, 0, 31, 15)),
    });
    expect(cell('a_select')).toBe('red');
    expect(cell('a_multiselect')).toBe('blue|red');
    expect(cell('a_price')).toBe('19.90 BRL');
    expect(cell('a_metric')).toBe('1.25 kg');
    expect(cell('a_textarea', 'pt')).toBe('Descrição');
    expect(cell('a_textarea')).toBe('en: Description | pt: Descrição');
    expect(fail.fields).toBe(0);
  });

  it('leaves a value that does not fit its type empty and counts it; an unknown attribute is written plainly', () => {
    const fail = { fields: 0 };
    expect(attributeCell('twelve', ATTRIBUTES.get('a_number'), undefined, fail)).toBeNull();
    expect(attributeCell({ amount: 'x' }, ATTRIBUTES.get('a_price'), undefined, fail)).toBeNull();
    expect(fail.fields).toBe(2);
    expect(attributeCell(['x', 'y'], undefined, undefined, fail)).toBe('x|y');
    expect(attributeCell({ a: 1 }, undefined, undefined, fail)).toBe('{"a":1}');
  });

  it('writes dates as date cells and date-times as instants, and a text that names no day as text', () => {
    expect(dateCell('2024-01-31')).toEqual(new Date(Date.UTC(2024, 0, 31)));
    expect(instantCell('2024-01-31T12:00:00-03:00')).toEqual({ instant: new Date(Date.UTC(2024, 0, 31, 15)) });
    expect(instantCell('2026-11-25T10:00:00.120Z')).toEqual({
      instant: new Date(Date.UTC(2026, 10, 25, 10, 0, 0, 120)),
    });
    expect(dateCell('2024-02-30')).toBe('2024-02-30');
    expect(dateCell('31/01/2024')).toBe('31/01/2024');
    expect(instantCell('2024-01-31T12:00')).toBe('2024-01-31T12:00');
    expect(dateCell('2024-01-31T12:00:00Z')).toBe('2024-01-31T12:00:00Z');
  });

  it('keeps money to two decimals without rounding, and cuts texts longer than an XLSX cell', () => {
    expect([moneyAmount(19.9), moneyAmount(12), moneyAmount(0.125)]).toEqual(['19.90', '12.00', '0.125']);
    const fail = { fields: 0 };
    const cells = fitCells(['x'.repeat(XLSX_CELL_MAX + 5), 'short', 3], fail);
    expect((cells[0] as string).length).toBe(XLSX_CELL_MAX);
    expect(cells.slice(1)).toEqual(['short', 3]);
    expect(fail.fields).toBe(1);
  });
});

describe('export reports', () => {
  it('general: default columns cover every field, language and attribute; references become codes', () => {
    const report = buildReport('general', inputs());
    expect(report.header.slice(0, 8)).toEqual([
      '_id',
      'code',
      'type',
      'enabled',
      'name.en',
      'name.pt',
      'description.en',
      'description.pt',
    ]);
    expect(report.header).toEqual(
      expect.arrayContaining(['attributes.a_textarea.en', 'attributes.a_textarea.pt', 'attributes.a_price']),
    );
    // Date-time columns name the zone their times are written in.
    expect(report.header.slice(-2)).toEqual(['created_at (UTC)', 'updated_at (UTC)']);
    const ctx = context();
    const [row] = report.rows(product(), ctx);
    const byHeader = Object.fromEntries(report.header.map((h, i) => [h, row[i]]));
    expect(byHeader).toMatchObject({
      code: 'mug-1',
      'name.pt': 'Caneca',
      'description.en': null,
      brand: 'acme',
      categories: 'kitchen',
      tags: 'a|b',
      'attributes.a_multiselect': 'blue|red',
      'attributes.a_number': 12,
      'attributes.a_boolean': false,
      'attributes.a_date': new Date(Date.UTC(2024, 0, 31)),
      'created_at (UTC)': { instant: new Date(Date.UTC(2026, 10, 25, 10)) },
      'updated_at (UTC)': { instant: new Date(Date.UTC(2026, 10, 25, 10)) },
    });
    // The category no longer live is left out of the cell and counted.
    expect(ctx.fail.fields).toBe(1);
  });

  it('general: chosen columns under their titles; a column naming nothing is a 400 naming it', () => {
    const report = buildReport(
      'general',
      inputs({
        headers: [
          { label: 'SKU', value: 'code', isAttribute: false },
          { label: 'Preço', value: 'a_price', isAttribute: true },
          { label: 'Descrição', value: 'a_textarea.pt', isAttribute: true },
          { label: 'completeness.pt', isAttribute: false },
        ],
      }),
    );
    expect(report.header).toEqual(['SKU', 'Preço', 'Descrição', 'completeness.pt']);
    expect(report.rows(product(), context())).toEqual([['mug-1', '19.90 BRL', 'Descrição', 100]]);
    const refused = () =>
      buildReport(
        'general',
        inputs({
          headers: [
            { label: 'Colour', value: 'colour', isAttribute: true },
            { label: 'Price pt', value: 'a_price.pt', isAttribute: true },
            { label: 'Weight', isAttribute: false },
          ],
        }),
      );
    expect(refused).toThrow(ValidationError);
    expect(refused).toThrow(
      "headers.0.value 'colour' names no live attribute 'colour'; headers.1.value 'a_price.pt' names a language of 'a_price', which is not a localizable text attribute; headers.2.value 'Weight' names no product field",
    );
  });

  it('per_attributes: a row per value (per language for a localizable text), keys in order, only the keys asked', () => {
    const report = buildReport('per_attributes', inputs({ attributeKeys: ['a_textarea', 'a_number'] }));
    expect(report.header).toEqual(['code', 'attribute_key', 'attribute_name', 'language', 'value']);
    expect(report.rows(product(), context())).toEqual([
      ['mug-1', 'a_number', 'The a_number', null, 12],
      ['mug-1', 'a_textarea', 'The a_textarea', 'en', 'Description'],
      ['mug-1', 'a_textarea', 'O a_textarea', 'pt', 'Descrição'],
    ]);
  });

  it('eligibility_services: a row per item, in the order of the relation types, with codes and trees', () => {
    const relations = [
      {
        id: 'r2',
        type: 'ineligible_service_categories',
        product_id: 'p1',
        ineligible_service_categories: [{ id: 'c2', category_tree_id: 't1' }],
      },
      { id: 'r1', type: 'eligible_service_products', product_id: 'p1', eligible_service_products: [{ id: 's1' }] },
    ] as unknown as rpb.ProductRelation[];
    const report = buildReport('eligibility_services', inputs());
    expect(report.rows(product(), context(relations))).toEqual([
      ['mug-1', 'Mug', 'eligible_service_products', true, 'product', 's1', 'install', 'Installation', null],
      ['mug-1', 'Mug', 'ineligible_service_categories', false, 'category', 'c2', 'garden', 'Garden', 'main'],
    ]);
    expect(() =>
      buildReport('eligibility_services', inputs({ headers: [{ label: 'x', value: 'a_price', isAttribute: true }] })),
    ).toThrow(/'a_price' is not a column of this report/);
  });
});

/** A report's header and rows for `products`, written as the runner writes them. */
async function fileOf(
  format: 'csv' | 'xlsx',
  headers: string[],
  products: ppb.Product[],
  timeZone?: string,
): Promise<Buffer> {
  const report = buildReport('general', {
    ...inputs({ headers: headers.map((label) => ({ label, isAttribute: false })) }),
    timeZone,
  });
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  const writer = createSheetWriter(format, out, { worksheetName: 'Products', timeZone });
  await writer.write(report.header);
  for (const p of products) for (const row of report.rows(p, context())) await writer.write(row);
  await writer.end();
  return Buffer.concat(chunks);
}

describe('export files', () => {
  const AWKWARD = [
    'Caneca\n(lava-louças)',
    'Bare\rreturn',
    'Windows\r\nline',
    '\r=1+1',
    'Say "hi", then; go',
    '=não é fórmula',
    '-10% off',
    "'quoted'",
  ];

  it('CSV: a strict RFC 4180 parser reads every name back, once the neutralizing quote is removed', async () => {
    const products = AWKWARD.map((name, i) => product({ id: `p${i}`, code: `mug-${i}`, name: { pt: name } }));
    const bytes = await fileOf('csv', ['code', 'name.pt', 'attributes.a_number'], products);
    const rows = parse(bytes, { bom: true, relax_quotes: false, relax_column_count: false }) as string[][];
    expect(rows).toHaveLength(1 + AWKWARD.length);
    expect(rows.slice(1).map((r) => stripFormulaQuote(r[1]))).toEqual(AWKWARD);
    expect(rows[1 + AWKWARD.indexOf('=não é fórmula')][1]).toBe("'=não é fórmula");
    // A number is not text: never prefixed.
    expect(rows[1][2]).toBe('12');
  });

  it('XLSX: numbers, dates, date-times and booleans are typed cells that exceljs reads as such', async () => {
    const bytes = await fileOf(
      'xlsx',
      ['code', 'attributes.a_number', 'attributes.a_date', 'created_at', 'attributes.a_boolean', 'enabled', 'name.pt'],
      [product({ name: { pt: '=não é fórmula' } })],
    );
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(bytes as unknown as ArrayBuffer);
    const row = wb.getWorksheet('Products')!.getRow(2);
    const { ValueType } = ExcelJS;
    expect([1, 2, 3, 4, 5, 6, 7].map((i) => row.getCell(i).type)).toEqual([
      ValueType.String,
      ValueType.Number,
      ValueType.Date,
      ValueType.Date,
      ValueType.Boolean,
      ValueType.Boolean,
      ValueType.String,
    ]);
    expect([1, 2, 3, 4, 5, 6, 7].map((i) => row.getCell(i).value)).toEqual([
      'mug-1',
      12,
      new Date(Date.UTC(2024, 0, 31)),
      new Date(Date.UTC(2026, 10, 25, 10)),
      false,
      true,
      '=não é fórmula',
    ]);
    expect(row.getCell(3).numFmt).toBe('yyyy-mm-dd');
    expect(row.getCell(4).numFmt).toBe('yyyy-mm-dd hh:mm:ss');
  });

  it('writes date-times in the export’s time zone, named in the header; dates are never moved', async () => {
    const columns = ['code', 'attributes.a_date', 'attributes.a_datetime', 'created_at'];
    const p = product({ attributes: { ...product().attributes, a_datetime: '2024-02-01T13:20:30.000Z' } });
    const xlsx = new ExcelJS.Workbook();
    await xlsx.xlsx.load((await fileOf('xlsx', columns, [p], 'America/Sao_Paulo')) as unknown as ArrayBuffer);
    const sheet = xlsx.getWorksheet('Products')!;
    expect(sheet.getRow(1).values).toEqual([
      undefined,
      'code',
      'attributes.a_date',
      'attributes.a_datetime (America/Sao_Paulo)',
      'created_at (America/Sao_Paulo)',
    ]);
    // The wall time in São Paulo (UTC−3), as a person there reads it; the date as stored.
    expect(sheet.getRow(2).getCell(2).value).toEqual(new Date(Date.UTC(2024, 0, 31)));
    expect(sheet.getRow(2).getCell(3).value).toEqual(new Date(Date.UTC(2024, 1, 1, 10, 20, 30)));
    expect(sheet.getRow(2).getCell(4).value).toEqual(new Date(Date.UTC(2026, 10, 25, 7)));
    expect(sheet.getRow(2).getCell(4).numFmt).toBe('yyyy-mm-dd hh:mm:ss');

    const csv = parse(await fileOf('csv', columns, [p], 'America/Sao_Paulo'), { bom: true }) as string[][];
    expect(csv).toEqual([
      ['code', 'attributes.a_date', 'attributes.a_datetime (America/Sao_Paulo)', 'created_at (America/Sao_Paulo)'],
      ['mug-1', '2024-01-31', '2024-02-01T10:20:30.000-03:00', '2026-11-25T07:00:00.000-03:00'],
    ]);
  });
});

describe('export filters', () => {
  it('become the catalog list filters, with what SQL on the list cannot say checked per batch', () => {
    const s = selectionOf({
      enabled: true,
      _search: 'mug',
      brands: ['b1'],
      categories: ['c1', 'c2'],
      catalog: 'k1',
      custom_period: ['2026-01-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z'],
      attr_control: [{ attribute_item: { id: 'a1' }, attributes: { key: 'color', name: 'Color' } }],
      fulfilled: false,
      workflow_approval: 'w1',
      workflow_approval_status: 'approved',
    });
    expect(s.query).toEqual({
      search: 'mug',
      filters: [
        { field: 'enabled', op: 'eq', values: ['true'] },
        { field: 'brand_id', op: 'in', values: ['b1'] },
        { field: 'categories', op: 'in', values: ['c1', 'c2'] },
        { field: 'catalog_id', op: 'eq', values: ['k1'] },
        { field: 'created_at', op: 'gte', values: ['2026-01-01T00:00:00.000Z'] },
        { field: 'created_at', op: 'lte', values: ['2026-02-01T00:00:00.000Z'] },
        { field: 'attributes.color', op: 'exists', values: ['true'] },
      ],
    });
    expect(s.unfulfilledOnly).toBe(true);
    expect(s.approval).toEqual({ workflow_approval_id: 'w1', status: 'approved' });
    expect(selectionOf({ fulfilled: true }).query.filters).toEqual([{ field: 'fulfilled', op: 'gt', values: ['0'] }]);
  });
});
