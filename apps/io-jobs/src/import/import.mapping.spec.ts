import type { CatalogLink, ImportAttribute } from '../links/catalog.link';
import { checkMapping, mappedAttributeKeys, mappingFromTemplate, mappingProblems } from './import.mapping';
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
