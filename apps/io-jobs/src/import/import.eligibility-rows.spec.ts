import { ConflictError, UnavailableError, ValidationError } from '@pim/errors';
import type { relations as rpb } from '@pim/contracts';
import type { SheetRow } from '@pim/sheets';
import type { CatalogLink, NamedRecord, RelationWrite } from '../links/catalog.link';
import { EligibilityRows, sameItems } from './import.eligibility-rows';
import { cutsBefore } from './import.runner';

const HEADERS = [
  'code',
  'product_name',
  'relation',
  'eligible',
  'item_type',
  'item_id',
  'item_code',
  'item_name',
  'category_tree',
].map((label, i) => ({ column: String.fromCharCode(65 + i), label }));
const MAPPING = Object.fromEntries(HEADERS.map((h) => [h.column, h.label]));

const PRODUCTS: NamedRecord[] = ['mug', 'vase', 'install', 'gift-wrap'].map((code) => ({
  id: `p-${code}`,
  code,
  name: {},
}));
const TREES: NamedRecord[] = [
  { id: 't-main', code: 'main', name: {} },
  { id: 't-web', code: 'web', name: {} },
];
const CATEGORIES: NamedRecord[] = [
  { id: 'c-kitchen', code: 'kitchen', name: {}, category_tree_id: 't-main' },
  { id: 'c-garden', code: 'garden', name: {}, category_tree_id: 't-main' },
  { id: 'c-garden-web', code: 'garden', name: {}, category_tree_id: 't-web' },
];

/** The relations service in memory: one relation per key, versions counted, every write kept. */
function fakeCatalog(initial: RelationWrite[] = []) {
  const relations = new Map<string, rpb.ProductRelation>();
  const writes: { call: string; key: string; items: unknown[] }[] = [];
  let ids = 0;
  const store = (r: RelationWrite, version: number, id = `r-${++ids}`) => {
    const stored = {
      id,
      product_id: r.product_id,
      type: r.type,
      version,
      [r.type]: r.items,
    } as unknown as rpb.ProductRelation;
    relations.set(`${r.product_id}:${r.type}`, stored);
    return stored;
  };
  for (const r of initial) store(r, 1);
  const hooks: { beforeCreate?: (r: RelationWrite) => void; refuse?: (r: RelationWrite) => Error | undefined } = {};
  const catalog = {
    async recordsByCode(collection: string, codes: string[]) {
      const all = { products: PRODUCTS, categories: CATEGORIES, category_trees: TREES }[collection] ?? [];
      return all.filter((r) => codes.includes(r.code));
    },
    async named(collection: string, ids: string[]) {
      return collection === 'categories' ? CATEGORIES.filter((c) => ids.includes(c.id)) : [];
    },
    async relationsByKey(keys: string[]) {
      return keys.flatMap((k) => relations.get(k) ?? []);
    },
    async createRelation(r: RelationWrite) {
      hooks.beforeCreate?.(r);
      const refusal = hooks.refuse?.(r);
      if (refusal) throw refusal;
      const key = `${r.product_id}:${r.type}`;
      if (relations.has(key)) throw new ConflictError('exists');
      writes.push({ call: 'create', key, items: r.items });
      return store(r, 1);
    },
    async updateRelation(id: string, r: RelationWrite, expected: number) {
      const key = `${r.product_id}:${r.type}`;
      const current = relations.get(key)!;
      if (current.version !== expected) throw new ConflictError('version');
      writes.push({ call: 'update', key, items: r.items });
      return store(r, current.version + 1, id);
    },
  } as unknown as CatalogLink;
  return { catalog, relations, writes, hooks, store };
}

const row = (
  number: number,
  code: string | null,
  relation: string | null,
  item: string | null,
  more: Partial<Record<string, string | boolean>> = {},
): SheetRow => {
  const cells = HEADERS.map((h) => (more[h.label] ?? null) as string | boolean | null);
  cells[0] = code;
  cells[2] = relation;
  cells[6] = item;
  return { number, cells };
};

const problems = (refused: { row_number: number; problems: string }[]) =>
  refused.map((r) => [r.row_number, r.problems]);

describe('eligibility rows', () => {
  it('makes each named relation hold exactly the items its rows list, in order, each once; other relations stay', async () => {
    const { catalog, relations, writes } = fakeCatalog([
      { product_id: 'p-mug', type: 'eligible_service_products', items: [{ id: 'p-vase' }] },
      { product_id: 'p-mug', type: 'association', items: [{ id: 'p-vase' }] },
    ]);
    const shape = new EligibilityRows(MAPPING, HEADERS, catalog);
    const batch = await shape.prepare([
      row(2, 'mug', 'eligible_service_products', 'install', { eligible: true, item_type: 'product' }),
      row(3, 'mug', 'eligible_service_products', 'gift-wrap'),
      row(4, 'mug', 'eligible_service_products', 'install'),
      row(5, 'mug', 'ineligible_service_categories', 'garden', { category_tree: 'web' }),
      row(6, 'vase', 'Eligible_Service_Categories', null, { item_id: 'c-kitchen' }),
      row(7, 'vase', 'eligible_service_products', null, { item_id: 'p-somewhere' }),
    ]);
    expect([...batch.codes]).toEqual(['mug', 'vase']);
    expect(await batch.send('imp:2')).toEqual([]);
    expect(relations.get('p-mug:eligible_service_products')).toMatchObject({
      version: 2,
      eligible_service_products: [{ id: 'p-install' }, { id: 'p-gift-wrap' }],
    });
    // An ineligible category keeps its tree; the tree's code picked the garden of the web tree.
    expect(relations.get('p-mug:ineligible_service_categories')).toMatchObject({
      ineligible_service_categories: [{ id: 'c-garden-web', category_tree_id: 't-web' }],
    });
    expect(relations.get('p-vase:eligible_service_categories')).toMatchObject({
      eligible_service_categories: [{ id: 'c-kitchen' }],
    });
    // A product named by id is the catalog's to check.
    expect(relations.get('p-vase:eligible_service_products')).toMatchObject({
      eligible_service_products: [{ id: 'p-somewhere' }],
    });
    expect(relations.get('p-mug:association')).toMatchObject({ version: 1 });
    expect(writes.map((w) => w.call).sort()).toEqual(['create', 'create', 'create', 'update']);
  });

  it('writes nothing when a relation holds the items already, so a resent batch changes nothing', async () => {
    const { catalog, writes } = fakeCatalog();
    const rows = [
      row(2, 'mug', 'eligible_service_products', 'install'),
      row(3, 'mug', 'ineligible_service_categories', 'kitchen'),
    ];
    expect(await (await new EligibilityRows(MAPPING, HEADERS, catalog).prepare(rows)).send('imp:2')).toEqual([]);
    expect(writes).toHaveLength(2);
    // The same batch again, as a resumed job sends it: read, found equal, not written.
    expect(await (await new EligibilityRows(MAPPING, HEADERS, catalog).prepare(rows)).send('imp:2')).toEqual([]);
    expect(writes).toHaveLength(2);
  });

  it('reads a relation created meanwhile and replaces it at the version read', async () => {
    const { catalog, relations, hooks, store } = fakeCatalog();
    hooks.beforeCreate = (r) => {
      hooks.beforeCreate = undefined;
      store({ ...r, items: [{ id: 'p-vase' }] }, 3);
    };
    const shape = new EligibilityRows(MAPPING, HEADERS, catalog);
    const batch = await shape.prepare([row(2, 'mug', 'eligible_service_products', 'install')]);
    expect(await batch.send('imp:2')).toEqual([]);
    expect(relations.get('p-mug:eligible_service_products')).toMatchObject({
      version: 4,
      eligible_service_products: [{ id: 'p-install' }],
    });
  });

  it("gives the catalog's refusal to the rows of the item it names, and refuses the relation's other rows", async () => {
    const { catalog, hooks, relations } = fakeCatalog();
    hooks.refuse = (r) =>
      r.type === 'eligible_service_products'
        ? new ValidationError('Invalid product relation', {
            details: [
              { field: 'eligible_service_products.1.id', message: "must not be the relation's own product_id" },
            ],
          })
        : undefined;
    const shape = new EligibilityRows(MAPPING, HEADERS, catalog);
    const batch = await shape.prepare([
      row(2, 'mug', 'eligible_service_products', 'install'),
      row(3, 'mug', 'eligible_service_products', 'mug'),
      row(4, 'mug', 'eligible_service_categories', 'kitchen'),
    ]);
    expect(problems(await batch.send('imp:2'))).toEqual([
      [
        2,
        "not stored: row 3, another item of product 'mug' eligible_service_products, was refused (a relation's items are set from all its rows at once)",
      ],
      [3, "G (item_code): must not be the relation's own product_id"],
    ]);
    expect(relations.has('p-mug:eligible_service_categories')).toBe(true);
  });

  it('throws a failure that is no refusal, so the job retries the batch', async () => {
    const { catalog, hooks } = fakeCatalog();
    hooks.refuse = () => new UnavailableError('catalog is unavailable');
    const batch = await new EligibilityRows(MAPPING, HEADERS, catalog).prepare([
      row(2, 'mug', 'eligible_service_products', 'install'),
    ]);
    await expect(batch.send('imp:2')).rejects.toThrow('catalog is unavailable');
  });

  it('refuses what it cannot read, with the whole relation it belongs to', async () => {
    const { catalog, writes } = fakeCatalog();
    const batch = await new EligibilityRows(MAPPING, HEADERS, catalog).prepare([
      row(2, 'mug', 'eligible_service_products', 'install', { eligible: false }),
      row(3, 'mug', 'eligible_service_products', 'gift-wrap'),
      row(4, 'mug', 'eligible_service_categories', 'garden'),
      row(5, 'mug', 'ineligible_service_categories', 'garden', { category_tree: 'nowhere' }),
      row(6, 'mug', 'kit_products', 'install'),
      row(7, 'ghost', 'eligible_service_products', 'install'),
      row(8, 'vase', 'eligible_service_products', 'nothing', { item_type: 'category' }),
      row(9, 'vase', 'eligible_service_categories', null),
      row(10, null, 'eligible_service_categories', 'kitchen'),
    ]);
    expect(problems(await batch.send('imp:2'))).toEqual([
      [
        2,
        'D (eligible): says false, but eligible_service_products lists items that are eligible: to move an item, change its relation',
      ],
      [
        3,
        "not stored: row 2, another item of product 'mug' eligible_service_products, was refused (a relation's items are set from all its rows at once)",
      ],
      [
        4,
        "G (item_code): 2 categories have the code 'garden', in different trees: fill I (category_tree) with the code of its tree",
      ],
      [5, "I (category_tree): no category tree has the code 'nowhere'"],
      [
        6,
        "C (relation): 'kit_products' is not a service eligibility relation (one of eligible_service_products, ineligible_service_products, eligible_service_categories, ineligible_service_categories)",
      ],
      [7, "A (code): no product has the code 'ghost'"],
      [
        8,
        "E (item_type): says category, but eligible_service_products lists products; G (item_code): no product has the code 'nothing'",
      ],
      [9, 'G (item_code): is empty; every row names an item (by code, or by _id)'],
      [10, 'A (code): is empty; every row needs a product code'],
    ]);
    expect(writes).toEqual([]);
  });

  it('refuses the rows of a relation apart from its first ones, in this batch or a later one, and after a resume', async () => {
    const { catalog, relations } = fakeCatalog();
    const shape = new EligibilityRows(MAPPING, HEADERS, catalog);
    const first = await shape.prepare([
      row(2, 'mug', 'eligible_service_products', 'install'),
      row(3, 'mug', 'eligible_service_products', 'gift-wrap'),
      row(4, 'vase', 'eligible_service_products', 'install'),
      row(5, 'mug', 'eligible_service_products', 'vase'),
    ]);
    const apart =
      "C (relation): rows 2–3 set the items of product 'mug' eligible_service_products already: the rows of one product's relation must follow one another (at most 1,000), so move this row beside them and import them together";
    expect(problems(await first.send('imp:2'))).toEqual([[5, apart]]);
    const later = await shape.prepare([row(6, 'mug', 'eligible_service_products', 'vase')]);
    expect(problems(await later.send('imp:6'))).toEqual([[6, apart]]);
    expect(relations.get('p-mug:eligible_service_products')).toMatchObject({
      version: 1,
      eligible_service_products: [{ id: 'p-install' }, { id: 'p-gift-wrap' }],
    });
    // A resumed run reads the rows before its checkpoint again, and knows them.
    const resumed = new EligibilityRows(MAPPING, HEADERS, catalog);
    for (const r of [2, 3, 4].map((n) => row(n, n === 4 ? 'vase' : 'mug', 'eligible_service_products', 'x')))
      resumed.passed(r);
    const again = await resumed.prepare([row(5, 'mug', 'eligible_service_products', 'vase')]);
    expect(problems(await again.send('imp:5'))).toEqual([[5, apart]]);
  });

  it('compares items by id, order and tree', () => {
    expect(sameItems([{ id: 'a' }, { id: 'b' }], [{ id: 'a' }, { id: 'b' }])).toBe(true);
    expect(sameItems([{ id: 'b' }, { id: 'a' }], [{ id: 'a' }, { id: 'b' }])).toBe(false);
    expect(sameItems([{ id: 'a', category_tree_id: 't' }], [{ id: 'a', category_tree_id: 't' }])).toBe(true);
    expect(sameItems([{ id: 'a', category_tree_id: 't' }], [{ id: 'a', category_tree_id: 'u' }])).toBe(false);
    expect(sameItems([{ id: 'a' }], [])).toBe(false);
  });
});

describe('batches keep runs whole', () => {
  const shape = new EligibilityRows(MAPPING, HEADERS, fakeCatalog().catalog);
  const key = (r: SheetRow) => shape.groupOf(r);
  const mug = row(9, 'mug', 'eligible_service_products', 'x');

  it('cuts a full batch only before a row of another run, or once it has grown by a relation’s most items', () => {
    expect(cutsBefore(shape, { rows: 1, lastKey: undefined }, mug, 2)).toBe(false);
    expect(cutsBefore(shape, { rows: 2, lastKey: key(mug) }, mug, 2)).toBe(false);
    expect(cutsBefore(shape, { rows: 2, lastKey: key(row(1, 'vase', 'eligible_service_products', 'x')) }, mug, 2)).toBe(
      true,
    );
    // A row with no key (refused alone) does not end a run.
    expect(cutsBefore(shape, { rows: 2, lastKey: key(mug) }, row(10, null, null, 'x'), 2)).toBe(false);
    expect(cutsBefore(shape, { rows: 1_002, lastKey: key(mug) }, mug, 2)).toBe(true);
    // Product rows: at the batch's size.
    expect(cutsBefore({}, { rows: 2, lastKey: undefined }, mug, 2)).toBe(true);
  });
});
