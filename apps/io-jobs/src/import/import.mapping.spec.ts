import type { CatalogLink, ImportAttribute } from '../links/catalog.link';
import {
  checkMapping,
  mappedAttributeKeys,
  mappingFromTemplate,
  mappingProblems,
  ownHeadersMapping,
} from './import.mapping';
import { RowConverter } from './import.rows';

const headers = [
  { column: 'A', label: 'SKU' },
  { column: 'B', label: 'Nome' },
  { column: 'C', label: 'Cor' },
  { column: 'D', label: 'Descrição' },
];
const attributes: ImportAttribute[] = [
  { id: 'a1', key: 'color', type: 'select', localizable: false },
  { id: 'a2', key: 'story', type: 'textarea', localizable: true },
];

describe('import mapping', () => {
  it('accepts columns of the header row mapped to fields an import fills, one of them code', () => {
    const mapping = { A: 'code', B: 'name.pt-BR', C: 'attributes.color', D: 'attributes.story.pt' };
    expect(mappingProblems(mapping, headers, attributes)).toEqual([]);
    expect(mappedAttributeKeys(mapping)).toEqual(['color', 'story']);
    expect(mappingProblems({}, headers, attributes)).toEqual([]);
  });

  it("takes an export's own columns mapped to themselves (read past) and attribute keys as attributes write them", () => {
    const wide = [...headers, ...['E', 'F', 'G', 'H', 'I'].map((column) => ({ column, label: column }))];
    const keyed: ImportAttribute[] = [
      ...attributes,
      { id: 'a3', key: 'Voltage_2', type: 'number', localizable: false },
    ];
    const mapping = {
      A: 'code',
      B: '_id',
      C: 'created_at',
      D: 'completeness.pt-BR',
      E: 'category_trees',
      F: 'parent',
      G: 'published',
      H: 'updated_at',
      I: 'attributes.Voltage_2',
    };
    expect(mappingProblems(mapping, wide, keyed)).toEqual([]);
    expect(mappingProblems({ A: 'code', B: 'attributes.9volts' }, headers, keyed)).toEqual([
      { field: 'mapped_headers.B', message: "'attributes.9volts' is not a product field an import can fill" },
    ]);
  });

  it('names every problem: unknown columns and fields, attributes, languages, a field twice, no code', () => {
    const problems = mappingProblems(
      {
        Z: 'code',
        A: 'colour',
        B: 'attributes.size',
        C: 'attributes.color.pt',
        D: 'attributes.story',
      },
      headers,
      attributes,
    );
    expect(problems).toEqual([
      { field: 'mapped_headers.Z', message: 'is not a column of the header row (columns: A, B, C, D)' },
      { field: 'mapped_headers.A', message: "'colour' is not a product field an import can fill" },
      { field: 'mapped_headers.B', message: "no live attribute has the key 'size'" },
      {
        field: 'mapped_headers.C',
        message: "attribute 'color' is not localizable: map it as attributes.color",
      },
      {
        field: 'mapped_headers.D',
        message: "attribute 'story' is localizable: map it per language, as attributes.story.pt-BR",
      },
      { field: 'mapped_headers', message: 'no column is mapped to code (products are matched by code)' },
    ]);
    expect(mappingProblems({ A: 'code', B: 'name.pt', C: 'name.pt' }, headers, attributes)).toEqual([
      { field: 'mapped_headers.C', message: "'name.pt' is already filled from column B" },
    ]);
    expect(() => checkMapping({ A: 'tags' }, headers, attributes)).toThrow('The column mapping has 1 problem(s)');
  });

  describe('a column whose header cell is empty (the sheet lists it with an empty label: data below it)', () => {
    // A title merged over two columns, saved as CSV: the second one's header cell is empty.
    const sized = [
      { column: 'A', label: 'code' },
      { column: 'B', label: 'size' },
      { column: 'C', label: '' },
    ];
    const measures: ImportAttribute[] = [
      { id: 'a4', key: 'width', type: 'number', localizable: false },
      { id: 'a5', key: 'height', type: 'number', localizable: false },
    ];
    const mapping = { A: 'code', B: 'attributes.width', C: 'attributes.height' };

    it('is mapped by its letter, never by a template', () => {
      expect(mappingProblems(mapping, sized, measures)).toEqual([]);
      expect(mappingFromTemplate({ '': 'attributes.height', ' ': 'tags', Size: 'attributes.width' }, sized)).toEqual({
        B: 'attributes.width',
      });
    });

    it("is named by its letter alone in a row's problems", async () => {
      // Number attributes and no import targets: the converter asks the catalog nothing.
      const keyed = new Map(measures.map((a) => [a.key, a]));
      const converter = new RowConverter(mapping, sized, keyed, {}, {} as CatalogLink);
      const { items, problems } = await converter.convert([
        { number: 4, cells: ['P-1', 10, 9.5] },
        { number: 5, cells: ['P-2', 'wide', 'tall'] },
      ]);
      expect(items.map((i) => i.item)).toEqual([{ code: 'P-1', attributes: { width: 10, height: 9.5 } }]);
      expect(problems[0].problems).toEqual([
        'B (size): "wide" is not a number (write 12.5, 12,5 or 15%)',
        'C: "tall" is not a number (write 12.5, 12,5 or 15%)',
      ]);
    });
  });

  it('takes a template by header label, ignoring case and surrounding spaces, leaving out labels the file lacks', () => {
    expect(mappingFromTemplate({ ' sku ': 'code', NOME: 'name.pt', Preço: 'attributes.price' }, headers)).toEqual({
      A: 'code',
      B: 'name.pt',
    });
  });
});

describe('row shapes: what a row stands for, decided by the mapping', () => {
  const labels = (...names: string[]) => names.map((label, i) => ({ column: String.fromCharCode(65 + i), label }));
  const story: ImportAttribute[] = [{ id: 'a2', key: 'story', type: 'textarea', localizable: true }];

  it("maps a per_attributes export's own headers to attribute rows, its zone suffix aside", () => {
    const headers = labels(
      '_id',
      'code',
      'product_name',
      'attribute_key',
      'attribute_name',
      'attribute_type',
      'language',
      'value (America/Sao_Paulo)',
    );
    const mapping = ownHeadersMapping(headers);
    expect(mapping).toEqual({
      A: '_id',
      B: 'code',
      C: 'product_name',
      D: 'attribute_key',
      E: 'attribute_name',
      F: 'attribute_type',
      G: 'language',
      H: 'value',
    });
    expect(mappingProblems(mapping, headers, [])).toEqual([]);
  });

  it("maps an eligibility_services export's own headers to eligibility rows", () => {
    const headers = labels(
      'code',
      'product_name',
      'relation',
      'eligible',
      'item_type',
      'item_id',
      'item_code',
      'item_name',
      'category_tree',
      '_id',
    );
    const mapping = ownHeadersMapping(headers);
    expect(Object.keys(mapping)).toHaveLength(headers.length);
    expect(mappingProblems(mapping, headers, [])).toEqual([]);
    // item_id alone names the items too.
    expect(mappingProblems({ A: 'code', C: 'relation', F: 'item_id' }, headers, [])).toEqual([]);
  });

  it('refuses columns of another shape beside the ones that make the mapping’s, naming each', () => {
    const headers = labels('code', 'attribute_key', 'value', 'name.en', 'relation', 'item_code', 'updated_at');
    expect(
      mappingProblems(
        { A: 'code', B: 'attribute_key', C: 'value', D: 'name.en', E: 'relation', F: 'item_code', G: 'updated_at' },
        headers,
        story,
      ),
    ).toEqual([
      {
        field: 'mapped_headers.D',
        message:
          "'name.en' is a column of product rows (one row per product), but columns B and C (attribute_key and value) make this file attribute rows (one row per product and attribute value): a file holds rows of one kind, so leave this column out",
      },
      {
        field: 'mapped_headers.E',
        message: expect.stringMatching(
          /^'relation' is a column of eligibility rows \(one row per product and service eligibility item\), but columns B and C/,
        ),
      },
      { field: 'mapped_headers.F', message: expect.stringMatching(/^'item_code' is a column of eligibility rows/) },
      { field: 'mapped_headers.G', message: expect.stringMatching(/^'updated_at' is a column of product rows/) },
    ]);
    expect(mappingProblems({ A: 'code', E: 'relation', F: 'item_code', D: 'name.en' }, headers, story)).toEqual([
      {
        field: 'mapped_headers.D',
        message:
          "'name.en' is a column of product rows (one row per product), but columns E and F (relation and item_code) make this file eligibility rows (one row per product and service eligibility item): a file holds rows of one kind, so leave this column out",
      },
    ]);
  });

  it('refuses the columns of a shape without the columns that make it, saying which are missing', () => {
    const headers = labels('code', 'attribute_key', 'language', 'item_code', 'eligible', 'name.en');
    expect(mappingProblems({ A: 'code', B: 'attribute_key', C: 'language', F: 'name.en' }, headers, story)).toEqual([
      {
        field: 'mapped_headers.B',
        message:
          "'attribute_key' is a column of attribute rows (one row per product and attribute value), which need columns mapped to attribute_key and value (no column is mapped to value)",
      },
      {
        field: 'mapped_headers.C',
        message: expect.stringMatching(/^'language' is a column of attribute rows .*\(no column is mapped to value\)$/),
      },
    ]);
    expect(mappingProblems({ A: 'code', E: 'eligible' }, headers, story)).toEqual([
      {
        field: 'mapped_headers.E',
        message:
          "'eligible' is a column of eligibility rows (one row per product and service eligibility item), which need a column mapped to relation and one to item_code or item_id (no column is mapped to relation nor to item_code or item_id)",
      },
    ]);
    // Still no code: said as before.
    expect(mappingProblems({ B: 'attribute_key', C: 'language' }, headers, story).at(-1)).toEqual({
      field: 'mapped_headers',
      message: 'no column is mapped to code (products are matched by code)',
    });
  });

  it('takes, from a template naming the columns of every report, the ones of the file at hand', () => {
    const template = Object.fromEntries(
      ['code', 'attribute_key', 'language', 'value', 'relation', 'item_code', 'name.en', 'product_name'].map((t) => [
        t,
        t,
      ]),
    );
    const perAttributes = labels('code', 'product_name', 'attribute_key', 'language', 'value');
    const mapping = mappingFromTemplate(template, perAttributes);
    expect(mapping).toEqual({ A: 'code', B: 'product_name', C: 'attribute_key', D: 'language', E: 'value' });
    expect(mappingProblems(mapping, perAttributes, [])).toEqual([]);
  });
});
