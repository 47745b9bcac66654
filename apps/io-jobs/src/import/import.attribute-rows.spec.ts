import type { BulkItemResult } from '@pim/resources';
import type { SheetRow } from '@pim/sheets';
import type { CatalogLink, ImportAttribute, StoredProduct } from '../links/catalog.link';
import { AttributeRows, attributeRowsRefusal, mergeProductRows, type AttributeRow } from './import.attribute-rows';

const ATTRIBUTES: ImportAttribute[] = [
  { id: 'a1', key: 'a_number', type: 'number', localizable: false },
  { id: 'a2', key: 'a_text', type: 'text', localizable: false },
  { id: 'a3', key: 'story', type: 'textarea', localizable: true },
  { id: 'a4', key: 'when', type: 'datetime', localizable: false },
];
const HEADERS = [
  { column: 'A', label: 'code' },
  { column: 'B', label: 'attribute_key' },
  { column: 'C', label: 'language' },
  { column: 'D', label: 'value (America/Sao_Paulo)' },
];
const MAPPING = { A: 'code', B: 'attribute_key', C: 'language', D: 'value' };

const stored = (code: string, attributes: Record<string, unknown> = {}): StoredProduct => ({
  id: `id-${code}`,
  code,
  categories: [],
  catalogs: [],
  attributes,
});

/** The link's calls an attribute-rows import makes, answered from memory; the bulk upserts sent are kept. */
function fakeCatalog(products: StoredProduct[], answer: (item: Record<string, unknown>) => BulkItemResult) {
  const sent: { items: Record<string, unknown>[]; batchId: string }[] = [];
  const looked: string[][] = [];
  const catalog = {
    async attributes(keys: string[]) {
      looked.push(keys);
      return ATTRIBUTES.filter((a) => keys.includes(a.key));
    },
    async storedProducts(codes: string[]) {
      return new Map(products.filter((p) => codes.includes(p.code)).map((p) => [p.code, p]));
    },
    async upsert(items: Record<string, unknown>[], batchId: string) {
      sent.push({ items, batchId });
      return items.map((item, index) => ({ ...answer(item), index }));
    },
  } as unknown as CatalogLink;
  return { catalog, sent, looked };
}

const ok = (item: Record<string, unknown>): BulkItemResult =>
  ({ index: 0, code: item.code, status: 'unchanged' }) as unknown as BulkItemResult;
const row = (number: number, ...cells: (string | number | null)[]): SheetRow => ({ number, cells });

describe('attribute rows', () => {
  it("merges a product's rows into one item: values by key, a localizable text's languages onto those stored", async () => {
    const { catalog, sent } = fakeCatalog(
      [stored('mug', { story: { en: 'Old', pt: 'Antiga', es: 'Vieja' } }), stored('vase')],
      ok,
    );
    const shape = new AttributeRows(MAPPING, HEADERS, {}, catalog, { timeZone: 'UTC' });
    const batch = await shape.prepare([
      row(2, 'mug', 'a_number', null, '1.234,5'),
      row(3, 'mug', 'story', 'en', 'New'),
      row(4, 'mug', 'story', 'pt', "'=Nova"),
      row(5, 'vase', 'a_text', null, 'abc'),
      row(6, 'mug', 'when', null, '2024-02-01 10:20:30'),
      row(7, 'vase', 'a_number', null, null),
    ]);
    expect([...batch.codes]).toEqual(['mug', 'vase']);
    expect(await batch.send('imp:2')).toEqual([]);
    expect(sent).toEqual([
      {
        batchId: 'imp:2',
        items: [
          {
            code: 'mug',
            attributes: {
              a_number: 1234.5,
              // A row sets one language and keeps the others stored; the formula quote is removed.
              story: { en: 'New', pt: '=Nova', es: 'Vieja' },
              // The value column's header names its zone: 10:20:30 in São Paulo.
              when: '2024-02-01T13:20:30.000Z',
            },
          },
          // An empty value sets nothing.
          { code: 'vase', attributes: { a_text: 'abc' } },
        ],
      },
    ]);
  });

  it('looks each key up once per run, and adds the import’s catalog and category to each product', async () => {
    const { catalog, sent, looked } = fakeCatalog([stored('mug')], ok);
    const shape = new AttributeRows(
      MAPPING,
      HEADERS,
      { category_id: 'cat-1', catalog: { _id: 'c-1', user_groups: [] } },
      catalog,
    );
    await (await shape.prepare([row(2, 'mug', 'a_text', null, 'x')])).send('imp:2');
    await (await shape.prepare([row(3, 'mug', 'a_text', null, 'y'), row(4, 'mug', 'a_number', null, 1)])).send('imp:3');
    expect(looked).toEqual([['a_text'], ['a_number']]);
    expect(sent[0].items).toEqual([
      { code: 'mug', attributes: { a_text: 'x' }, categories: ['cat-1'], catalogs: [{ _id: 'c-1', user_groups: [] }] },
    ]);
  });

  it("refuses a product's every row when one is refused here, and sends its code alone (a batch resent lines up)", async () => {
    const { catalog, sent } = fakeCatalog([stored('mug'), stored('vase'), stored('cup')], ok);
    const shape = new AttributeRows(MAPPING, HEADERS, {}, catalog);
    const batch = await shape.prepare([
      row(2, 'mug', 'a_text', null, 'fine'),
      row(3, 'mug', 'a_number', null, 'twelve'),
      row(4, 'vase', 'gone', null, 'x'),
      row(5, 'cup', 'story', null, 'No language'),
      row(6, 'cup', 'a_text', 'en', 'Language'),
      row(7, null, 'a_text', null, 'x'),
      row(8, 'bowl', 'a_text', null, 'ok'),
    ]);
    const refused = await batch.send('imp:2');
    expect(refused.map((r) => [r.row_number, r.problems])).toEqual([
      [2, "not stored: row 3, another value of product 'mug', was refused (a product's rows are stored together)"],
      [3, 'D (value (America/Sao_Paulo)): "twelve" is not a number (write 12.5, 12,5 or 15%)'],
      [4, "B (attribute_key): no live attribute has the key 'gone'"],
      [5, "C (language): is empty; attribute 'story' is localizable: each of its rows names a language"],
      [6, "C (language): attribute 'a_text' is not localizable: leave language empty"],
      [7, 'A (code): is empty; every row needs a product code'],
    ]);
    expect(refused[0].cells).toEqual(['mug', 'a_text', null, 'fine']);
    // bowl names no product: sent (the catalog makes no product without a name), refused below.
    expect(sent[0].items).toEqual([
      { code: 'mug' },
      { code: 'vase' },
      { code: 'cup' },
      { code: 'bowl', attributes: { a_text: 'ok' } },
    ]);
  });

  it('says a code names no product when the catalog refuses it for that reason', async () => {
    const { catalog } = fakeCatalog(
      [],
      (item) =>
        ({
          index: 0,
          code: item.code,
          status: 'failed',
          error: { message: 'Invalid product', details: [{ field: 'name', message: 'Required' }] },
        }) as unknown as BulkItemResult,
    );
    const shape = new AttributeRows(MAPPING, HEADERS, {}, catalog);
    const refused = await (await shape.prepare([row(2, 'bowl', 'a_text', null, 'ok')])).send('imp:2');
    expect(refused).toEqual([
      {
        row_number: 2,
        cells: ['bowl', 'a_text', null, 'ok'],
        problems:
          "A (code): no product has the code 'bowl' (attribute rows change existing products; create it with one row per product first)",
      },
    ]);
  });

  it("gives the catalog's refusal to the rows it concerns, and refuses the product's other rows naming the row", async () => {
    const { catalog } = fakeCatalog([stored('mug', { story: { en: 'x' } })], (item) =>
      item.code === 'mug'
        ? ({
            index: 0,
            code: 'mug',
            status: 'failed',
            error: {
              message: 'Product has 2 problems',
              details: [
                { field: 'attributes.a_text', message: 'must be at most 5 characters' },
                { field: 'attributes.story.pt', message: 'must be at most 10 characters' },
              ],
            },
          } as unknown as BulkItemResult)
        : ok(item),
    );
    const shape = new AttributeRows(MAPPING, HEADERS, {}, catalog);
    const refused = await (
      await shape.prepare([
        row(2, 'mug', 'a_number', null, 3),
        row(3, 'mug', 'a_text', null, 'too long'),
        row(4, 'mug', 'story', 'en', 'short'),
        row(5, 'mug', 'story', 'pt', 'much too long'),
      ])
    ).send('imp:2');
    expect(refused.map((r) => [r.row_number, r.problems])).toEqual([
      [2, "not stored: row 3, another value of product 'mug', was refused (a product's rows are stored together)"],
      [3, 'D (value (America/Sao_Paulo)): must be at most 5 characters'],
      [4, "not stored: row 3, another value of product 'mug', was refused (a product's rows are stored together)"],
      [5, 'D (value (America/Sao_Paulo)): must be at most 10 characters'],
    ]);
  });
});

describe('mergeProductRows and attributeRowsRefusal', () => {
  const attributes = new Map<string, ImportAttribute | null>(ATTRIBUTES.map((a) => [a.key, a]));
  const read = (number: number, code: string, key: string, value: unknown, language?: string): AttributeRow => ({
    row: { number, cells: [] },
    code,
    key,
    value,
    ...(language ? { language } : {}),
    problems: [],
  });

  it('keeps sheet order: a later row of one key and language wins; products in the order first named', () => {
    const { products, refused } = mergeProductRows(
      [read(2, 'b', 'a_text', 'one'), read(3, 'a', 'a_text', 'x'), read(4, 'b', 'a_text', 'two')],
      attributes,
      new Map(),
    );
    expect(refused).toEqual([]);
    expect(products.map((p) => [p.code, p.item, p.rows.map((r) => r.row.number)])).toEqual([
      ['b', { code: 'b', attributes: { a_text: 'two' } }, [2, 4]],
      ['a', { code: 'a', attributes: { a_text: 'x' } }, [3]],
    ]);
  });

  it('gives a refusal with no details, or a detail naming no row, to every row', () => {
    const product = { code: 'a', rows: [read(2, 'a', 'a_text', 'x'), read(3, 'a', 'a_number', 1)], item: {} };
    const failed = (error: unknown) => ({ index: 0, status: 'failed', error }) as unknown as BulkItemResult;
    expect(
      attributeRowsRefusal(failed({ message: 'out of sight' }), product, 'D (value)').map((r) => r.problems),
    ).toEqual([['out of sight'], ['out of sight']]);
    expect(
      attributeRowsRefusal(
        failed({ message: 'x', details: [{ field: 'attributes.size', message: 'is required for this product' }] }),
        product,
        'D (value)',
      ).map((r) => r.problems),
    ).toEqual([['attributes.size: is required for this product'], ['attributes.size: is required for this product']]);
  });
});
