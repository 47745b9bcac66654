import type { SheetRow } from '@pim/sheets';
import type { CatalogLink, ImportAttribute } from '../links/catalog.link';
import { ownHeadersMapping } from './import.mapping';
import { RowConverter } from './import.rows';
import { refusal } from './import.runner';

const ATTRIBUTES = new Map<string, ImportAttribute>([
  ['a_number', { id: 'a1', key: 'a_number', type: 'number', localizable: false }],
  ['a_text', { id: 'a2', key: 'a_text', type: 'text', localizable: false }],
]);
const HEADERS = [
  { column: 'A', label: 'code' },
  { column: 'B', label: 'name.pt' },
  { column: 'C', label: 'attributes.a_number' },
  { column: 'D', label: 'attributes.a_text' },
];
const MAPPING = { A: 'code', B: 'name.pt', C: 'attributes.a_number', D: 'attributes.a_text' };
// Rows with no reference columns and no import targets ask the catalog nothing.
const catalog = {} as CatalogLink;

const converter = (strip?: boolean) =>
  new RowConverter(MAPPING, HEADERS, ATTRIBUTES, {}, catalog, { stripFormulaQuote: strip });

describe('RowConverter and the neutralizing quote', () => {
  const rows: SheetRow[] = [
    { number: 2, cells: ["'=mug", "'=não é fórmula", "'-5", "''quoted"] },
    { number: 3, cells: ['mug-2', "'abc", -5, "''=x"] },
    { number: 4, cells: ["'+1", "'@x", 'twelve', '='] },
  ];

  it("removes the one ' a CSV export put before texts that start like a formula (by default)", async () => {
    const { items, problems } = await converter().convert(rows);
    expect(items.map((i) => i.item)).toEqual([
      { code: '=mug', name: { pt: '=não é fórmula' }, attributes: { a_number: -5, a_text: "'quoted" } },
      { code: 'mug-2', name: { pt: "'abc" }, attributes: { a_number: -5, a_text: "'=x" } },
    ]);
    // A refused row keeps its cells as read that way: its error file writes the quote back once.
    expect(problems).toEqual([
      { row: { number: 4, cells: ['+1', '@x', 'twelve', '='] }, problems: [expect.stringMatching(/^C \(attributes/)] },
    ]);
  });

  it('reads every cell as written when strip_formula_quote is off (a file from elsewhere)', async () => {
    const { items, problems } = await converter(false).convert(rows.slice(0, 2));
    expect(items.map((i) => i.item)).toEqual([
      { code: 'mug-2', name: { pt: "'abc" }, attributes: { a_number: -5, a_text: "''=x" } },
    ]);
    expect(problems).toEqual([
      { row: rows[0], problems: [expect.stringMatching(/^C \(attributes.a_number\): "'-5" is not a number/)] },
    ]);
  });
});

describe("RowConverter and an export's own columns", () => {
  it('reads past the columns the platform fills (_id, dates, completeness…), whatever they hold', async () => {
    const headers = [
      { column: 'A', label: '_id' },
      { column: 'B', label: 'code' },
      { column: 'C', label: 'created_at' },
      { column: 'D', label: 'completeness.pt' },
      { column: 'E', label: 'published' },
    ];
    const mapping = { A: '_id', B: 'code', C: 'created_at', D: 'completeness.pt', E: 'published' };
    const { items, problems } = await new RowConverter(mapping, headers, ATTRIBUTES, {}, catalog).convert([
      { number: 2, cells: ['6740a1b2c3d4e5f601234567', 'mug-1', new Date('2026-01-02T03:04:05Z'), 80, true] },
      { number: 3, cells: ['not an id', 'mug-2', 'not a date', 'n/a', 'maybe'] },
    ]);
    expect(problems).toEqual([]);
    expect(items.map((i) => i.item)).toEqual([{ code: 'mug-1' }, { code: 'mug-2' }]);
  });
});

describe("the catalog's refusals, as an import names them", () => {
  const story: ImportAttribute = { id: 'a3', key: 'story', type: 'textarea', localizable: true };
  const headers = [
    { column: 'A', label: 'SKU' },
    { column: 'B', label: 'Story pt' },
    { column: 'C', label: 'Story en' },
  ];
  const mapping = { A: 'code', B: 'attributes.story.pt', C: 'attributes.story.en' };
  const rows = new RowConverter(mapping, headers, new Map([['story', story]]), {}, catalog);
  const failed = (field: string, message: string) =>
    refusal({ index: 0, code: 'x', status: 'failed', error: { details: [{ field, message }] } } as never, rows);

  it('names every column of a localizable attribute by its letter and header', () => {
    expect(failed('attributes.story', 'is too long')).toEqual(['B (Story pt), C (Story en): is too long']);
    expect(failed('attributes.story.en', 'is too long')).toEqual(['C (Story en): is too long']);
  });

  it('says which column a new product lacks instead of the validator text', () => {
    expect(failed('name', 'Invalid input: expected record, received undefined')).toEqual([
      'name: no column fills it, and a new product needs it (map a column to name.<language>, e.g. name.pt-BR)',
    ]);
  });
});

describe('date-times in a time zone', () => {
  const when: ImportAttribute = { id: 'a4', key: 'when', type: 'datetime', localizable: false };
  const attributes = new Map([['when', when]]);
  const mapping = { A: 'code', B: 'attributes.when' };
  const row: SheetRow = { number: 2, cells: ['mug-1', new Date(Date.UTC(2024, 1, 1, 10, 20, 30))] };
  const read = async (label: string, timeZone?: string) => {
    const headers = [
      { column: 'A', label: 'code' },
      { column: 'B', label },
    ];
    const { items } = await new RowConverter(mapping, headers, attributes, {}, catalog, { timeZone }).convert([row]);
    return (items[0].item.attributes as Record<string, unknown>).when;
  };

  it("reads a wall time in the import's zone, UTC by default", async () => {
    expect(await read('When')).toBe('2024-02-01T10:20:30.000Z');
    expect(await read('When', 'America/Sao_Paulo')).toBe('2024-02-01T13:20:30.000Z');
  });

  it("reads a column whose header names a zone in that zone, whatever the import's", async () => {
    expect(await read('attributes.when (America/Sao_Paulo)', 'Asia/Tokyo')).toBe('2024-02-01T13:20:30.000Z');
    expect(await read('When (utc)', 'America/Sao_Paulo')).toBe('2024-02-01T10:20:30.000Z');
    // Parentheses that hold no zone are part of the label.
    expect(await read('When (local)', 'America/Sao_Paulo')).toBe('2024-02-01T13:20:30.000Z');
  });
});

describe("an export's own headers map themselves", () => {
  const headers = (...labels: string[]) => labels.map((label, i) => ({ column: String.fromCharCode(65 + i), label }));

  it('maps each header naming a field to it, a zone suffix aside, and the first of two alike', () => {
    expect(
      ownHeadersMapping(
        headers(
          '_id',
          'code',
          'name.pt-BR',
          'attributes.when (America/Sao_Paulo)',
          'updated_at (UTC)',
          'Notes',
          'code',
        ),
      ),
    ).toEqual({
      A: '_id',
      B: 'code',
      C: 'name.pt-BR',
      D: 'attributes.when',
      E: 'updated_at',
    });
  });

  it("maps nothing when no header is code: a merchant's own headers are the merchant's to map", () => {
    expect(ownHeadersMapping(headers('SKU', 'name.pt-BR', 'attributes.color'))).toEqual({});
  });
});
