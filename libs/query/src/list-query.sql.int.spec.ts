import { EntitySchema, type DataSource } from 'typeorm';
import { ValidationError } from '@pim/errors';
import { createDataSource, ensureSchema } from '@pim/db';
import { createTestDatabase, type TestDatabase } from '@pim/testing';
import { applyListQuery, declareResource, parseListQuery, type ApplyListQueryOptions, type ListQuery } from './index';

interface Item {
  _id: string;
  code: string;
}

const ItemEntity = new EntitySchema<Item>({
  name: 'Item',
  tableName: 'items',
  columns: {
    _id: { type: 'char', length: 24, primary: true },
    code: { type: 'text' },
  },
});

const items = declareResource({
  collection: 'items',
  fields: {
    _id: { type: 'id' },
    code: { type: 'string' },
    title: { type: 'string', searchable: true },
    price: { type: 'number' },
    qty: { type: 'number', column: 'quantity' },
    enabled: { type: 'boolean' },
    published_at: { type: 'date' },
    created_at: { type: 'date' },
    name: { type: 'translate', searchable: true },
    tags: { type: 'string[]', searchable: true },
    meta: { type: 'object', filterable: true },
  },
});

const id = (n: number): string => n.toString(16).padStart(24, '0');
const T0 = '2024-05-01T10:00:00.000Z';
const T1 = '2024-05-02T10:00:00.000Z';
const T2 = '2024-05-03T10:00:00.000Z';

// code, title, price, quantity, enabled, published_at, created_at, name (jsonb), tags, meta (jsonb)
const ROWS: [
  string,
  string,
  number | null,
  number,
  boolean | null,
  string | null,
  string,
  string | null,
  string[] | null,
  string | null,
][] = [
  [
    'A1',
    'Café com leite',
    10.5,
    1,
    true,
    '2024-01-10T00:00:00Z',
    T0,
    '{"pt":"Café","en":"Coffee"}',
    ['hot', 'drink'],
    '{"a":1}',
  ],
  ['A2', 'Chá verde', 5, 2, false, null, T0, '{"pt":"Chá","en":"Tea"}', ['hot'], null],
  ['B1', '100% natural juice', 7.25, 3, true, '2024-03-01T00:00:00Z', T1, '{"en":"Juice"}', ['cold', 'drink'], 'null'],
  ['B2', 'snake_case water', null, 0, null, '2024-02-01T12:00:00Z', T1, null, null, '{}'],
  [
    'C1',
    'Crème BRÛLÉE',
    12,
    5,
    true,
    '2023-12-31T23:59:59.999Z',
    T2,
    '{"fr":"Crème brûlée","pt":"CREME"}',
    ['dessert'],
    '{"b":2}',
  ],
  ['C2', 'path\\to', 1, 4, true, '2024-06-01T00:00:00Z', T2, '"plain"', [], null],
  ['D1', '５０％ off', 3, 6, false, null, '2024-05-04T10:00:00.000Z', '{"es":"Oferta"}', ['Promoção'], null],
];

describe('applyListQuery against Postgres', () => {
  let db: TestDatabase;
  let ds: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('query');
    await ensureSchema(db.url, 'query_test');
    ds = createDataSource({ url: db.url, schema: 'query_test', entities: [ItemEntity], migrations: [], poolSize: 2 });
    await ds.initialize();
    // In `public` so every app's search_path finds the one copy a database can hold.
    await ds.query('CREATE EXTENSION IF NOT EXISTS unaccent WITH SCHEMA public');
    await ds.query(`CREATE TABLE items (
      _id character(24) PRIMARY KEY, code text NOT NULL, title text, price numeric, quantity integer,
      enabled boolean, published_at timestamptz, created_at timestamptz NOT NULL, name jsonb, tags text[], meta jsonb)`);
    for (const [i, r] of ROWS.entries()) {
      await ds.query('INSERT INTO items VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)', [id(i + 1), ...r]);
    }
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  function run(q: ListQuery, opts?: ApplyListQueryOptions) {
    return applyListQuery(ds.getRepository(ItemEntity).createQueryBuilder('i'), items, q, 'i', opts);
  }

  /** Codes of the rows a query string returns, in order. */
  async function codes(raw: Record<string, unknown>, opts?: ApplyListQueryOptions): Promise<string[]> {
    const rows = await run(parseListQuery(items, { limit: '100', ...raw }), opts).getMany();
    return rows.map((r) => r.code);
  }
  const sorted = async (raw: Record<string, unknown>) => (await codes(raw)).sort();

  describe('filters', () => {
    it('matches strings by equality, sets and negation', async () => {
      expect(await sorted({ code: 'A1' })).toEqual(['A1']);
      expect(await sorted({ code_in: 'A1,B1' })).toEqual(['A1', 'B1']);
      expect(await sorted({ code_nin: 'A1,B1' })).toEqual(['A2', 'B2', 'C1', 'C2', 'D1']);
      expect(await sorted({ code_ne: 'A1' })).toEqual(['A2', 'B1', 'B2', 'C1', 'C2', 'D1']);
      expect(await sorted({ code_exists: 'false' })).toEqual([]);
    });

    it('compares numbers, also on an integer column given a decimal', async () => {
      expect(await sorted({ price: '5' })).toEqual(['A2']);
      expect(await sorted({ price_gt: '7.25' })).toEqual(['A1', 'C1']);
      expect(await sorted({ price_gte: '7.25' })).toEqual(['A1', 'B1', 'C1']);
      expect(await sorted({ price_lt: '5' })).toEqual(['C2', 'D1']);
      expect(await sorted({ price_lte: '5' })).toEqual(['A2', 'C2', 'D1']);
      expect(await sorted({ price_in: '5,12,99' })).toEqual(['A2', 'C1']);
      expect(await sorted({ qty_gt: '1.5', qty_lt: '4' })).toEqual(['A2', 'B1']);
      expect(await sorted({ qty: '0' })).toEqual(['B2']);
    });

    it('keeps records without a value in negations', async () => {
      expect(await sorted({ price_ne: '5' })).toEqual(['A1', 'B1', 'B2', 'C1', 'C2', 'D1']);
      expect(await sorted({ price_nin: '5,12' })).toEqual(['A1', 'B1', 'B2', 'C2', 'D1']);
      expect(await sorted({ price_exists: 'false' })).toEqual(['B2']);
    });

    it('matches booleans', async () => {
      expect(await sorted({ enabled: 'true' })).toEqual(['A1', 'B1', 'C1', 'C2']);
      expect(await sorted({ enabled: 'false' })).toEqual(['A2', 'D1']);
      expect(await sorted({ enabled_ne: 'true' })).toEqual(['A2', 'B2', 'D1']);
      expect(await sorted({ enabled_exists: 'false' })).toEqual(['B2']);
      expect(await sorted({ enabled_in: 'true,false' })).toEqual(['A1', 'A2', 'B1', 'C1', 'C2', 'D1']);
    });

    it('compares dates, reading a bare date as UTC midnight and honouring offsets', async () => {
      expect(await sorted({ published_at_gte: '2024-01-10' })).toEqual(['A1', 'B1', 'B2', 'C2']);
      expect(await sorted({ published_at_lt: '2024-01-01' })).toEqual(['C1']);
      expect(await sorted({ published_at_gte: '2024-02-01T13:00:00+01:00', published_at_lte: '2024-03-01' })).toEqual([
        'B1',
        'B2',
      ]);
      expect(await sorted({ published_at: '2023-12-31T23:59:59.999Z' })).toEqual(['C1']);
      expect(await sorted({ published_at_exists: 'false' })).toEqual(['A2', 'D1']);
      expect(await sorted({ created_at_in: `${T0},${T2}` })).toEqual(['A1', 'A2', 'C1', 'C2']);
    });

    it('filters ids by set and by order', async () => {
      expect(await sorted({ _id: id(3) })).toEqual(['B1']);
      expect(await sorted({ _id_in: `${id(1)},${id(7)}` })).toEqual(['A1', 'D1']);
      expect(await sorted({ _id_gt: id(5) })).toEqual(['C2', 'D1']);
      expect(await sorted({ _id_lte: id(2) })).toEqual(['A1', 'A2']);
    });

    it('treats equality on an array field as contains', async () => {
      expect(await sorted({ tags: 'drink' })).toEqual(['A1', 'B1']);
      expect(await sorted({ tags_in: 'cold,dessert' })).toEqual(['B1', 'C1']);
      expect(await sorted({ tags_ne: 'hot' })).toEqual(['B1', 'B2', 'C1', 'C2', 'D1']);
      expect(await sorted({ tags_nin: 'hot,dessert' })).toEqual(['B1', 'B2', 'C2', 'D1']);
      expect(await sorted({ tags_exists: 'false' })).toEqual(['B2']);
    });

    it('counts a JSON null as absent', async () => {
      expect(await sorted({ meta_exists: 'true' })).toEqual(['A1', 'B2', 'C1']);
      expect(await sorted({ meta_exists: 'false' })).toEqual(['A2', 'B1', 'C2', 'D1']);
    });

    it('binds hostile values as data', async () => {
      expect(await sorted({ code: "A1' OR '1'='1" })).toEqual([]);
      expect(await sorted({ code_in: "x'); DROP TABLE items; --" })).toEqual([]);
      expect(await ds.query('SELECT count(*)::int AS n FROM items')).toEqual([{ n: ROWS.length }]);
    });
  });

  describe('_search', () => {
    it('ignores accents and case in strings, translate values of any language and array items', async () => {
      expect(await sorted({ _search: 'cafe' })).toEqual(['A1']);
      expect(await sorted({ _search: 'COFFEE' })).toEqual(['A1']);
      expect(await sorted({ _search: 'cha' })).toEqual(['A2']);
      expect(await sorted({ _search: 'brulee' })).toEqual(['C1']);
      expect(await sorted({ _search: 'crème' })).toEqual(['C1']);
      expect(await sorted({ _search: 'OFERTA' })).toEqual(['D1']);
      expect(await sorted({ _search: 'promocao' })).toEqual(['D1']);
      expect(await sorted({ _search: 'drink' })).toEqual(['A1', 'B1']);
      expect(await sorted({ _search: 'no such thing' })).toEqual([]);
    });

    it('takes %, _ and \\ literally, also when unaccent produces them', async () => {
      expect(await sorted({ _search: '%' })).toEqual(['B1', 'D1']);
      expect(await sorted({ _search: '％' })).toEqual(['B1', 'D1']);
      expect(await sorted({ _search: '_' })).toEqual(['B2']);
      expect(await sorted({ _search: 'e_c' })).toEqual(['B2']);
      expect(await sorted({ _search: '\\' })).toEqual(['C2']);
      expect(await sorted({ _search: 'h\\t' })).toEqual(['C2']);
      expect(await sorted({ _search: '100%' })).toEqual(['B1']);
    });

    it('combines with filters', async () => {
      expect(await sorted({ _search: 'drink', enabled: 'true', price_gt: '8' })).toEqual(['A1']);
    });

    it('calls an IMMUTABLE unaccent wrapper when told to', async () => {
      await ds.query(`CREATE OR REPLACE FUNCTION public.immutable_unaccent(text) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $$`);
      expect((await codes({ _search: 'brulee' }, { unaccent: 'public.immutable_unaccent' })).sort()).toEqual(['C1']);
      const sql = run(parseListQuery(items, { _search: 'x' }), { unaccent: 'public.immutable_unaccent' }).getQuery();
      expect(sql).toContain('public.immutable_unaccent(');
      // IMMUTABLE: the pattern is inline (a constant once planned), not a subquery the planner cannot see into.
      expect(sql).not.toContain(`(SELECT '%'`);
      expect(run(parseListQuery(items, { _search: 'x' })).getQuery()).toContain(`(SELECT '%'`);
    });

    /** A stored folded title beside the table's title, as products have search_folded. */
    async function foldedTitle(): Promise<void> {
      await ds.query(`CREATE OR REPLACE FUNCTION public.immutable_unaccent(text) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $$`);
      await ds.query(
        `ALTER TABLE items ADD COLUMN IF NOT EXISTS title_folded text GENERATED ALWAYS AS (lower(public.immutable_unaccent(title))) STORED`,
      );
    }

    it('compares a stored folded column instead of folding the field, when told to', async () => {
      await foldedTitle();
      const opts = { unaccent: 'public.immutable_unaccent', folded: { title: 'title_folded' } };
      for (const term of ['cafe', 'BRULEE', 'drink', '100%', 'e_c', 'h\\t', 'promocao', 'no such thing']) {
        expect({ term, codes: (await codes({ _search: term }, opts)).sort() }).toEqual({
          term,
          codes: await sorted({ _search: term }),
        });
      }
      const sql = run(parseListQuery(items, { _search: 'xyz' }), opts).getQuery();
      expect(sql).toContain(`"i"."title_folded" LIKE ('%' ||`);
      expect(sql).not.toContain(`lower(public.immutable_unaccent("i"."title"))`);
    });

    it('keeps a term without three letters or digits in a row away from trigram indexes', async () => {
      await foldedTitle();
      const opts = { unaccent: 'public.immutable_unaccent', folded: { title: 'title_folded' } };
      const sql = (term: string) => run(parseListQuery(items, { _search: term }), opts).getQuery();
      expect(sql('cha')).toContain(`"i"."title_folded" LIKE`);
      expect(sql('Chá')).toContain(`"i"."title_folded" LIKE`);
      expect(sql('ch')).toContain(`("i"."title_folded" || '') LIKE`);
      expect(sql('a b c')).toContain(`("i"."title_folded" || '') LIKE`);
      expect(run(parseListQuery(items, { _search: 'ch' })).getQuery()).toContain(
        `(lower(unaccent("i"."title")) || '') LIKE`,
      );
      expect((await codes({ _search: 'ch' }, opts)).sort()).toEqual(['A2']);
    });
  });

  describe('sort and window', () => {
    it('sorts by the default -created_at and breaks ties by _id in the same direction', async () => {
      expect(await codes({})).toEqual(['D1', 'C2', 'C1', 'B2', 'B1', 'A2', 'A1']);
      expect(await codes({ sort: 'created_at' })).toEqual(['A1', 'A2', 'B1', 'B2', 'C1', 'C2', 'D1']);
    });

    it('sorts by several fields', async () => {
      expect(await codes({ sort: '-enabled,price', enabled_exists: 'true' })).toEqual([
        'C2',
        'B1',
        'A1',
        'C1',
        'D1',
        'A2',
      ]);
      expect(await codes({ sort: 'qty' })).toEqual(['B2', 'A1', 'A2', 'B1', 'C2', 'C1', 'D1']);
      expect(await codes({ sort: '_id' })).toEqual(['A1', 'A2', 'B1', 'B2', 'C1', 'C2', 'D1']);
      expect(await codes({ sort: 'created_at,-_id' })).toEqual(['A2', 'A1', 'B2', 'B1', 'C2', 'C1', 'D1']);
    });

    it('pages with limit and page, or skip, without overlap', async () => {
      const page = (raw: Record<string, unknown>) =>
        run(parseListQuery(items, raw))
          .getMany()
          .then((r) => r.map((x) => x.code));
      const pages = [
        await page({ limit: '3', page: '1' }),
        await page({ limit: '3', page: '2' }),
        await page({ limit: '3', page: '3' }),
      ];
      expect(pages).toEqual([['D1', 'C2', 'C1'], ['B2', 'B1', 'A2'], ['A1']]);
      expect(await page({ limit: '3', skip: '2' })).toEqual(['C1', 'B2', 'B1']);
      expect(await page({ limit: '3', page: '4' })).toEqual([]);
    });

    it('counts every match regardless of the window', async () => {
      const [rows, total] = await run(parseListQuery(items, { limit: '2', enabled: 'true' })).getManyAndCount();
      expect(rows.map((r) => r.code)).toEqual(['C2', 'C1']);
      expect(total).toBe(4);
    });
  });

  it("adds to the caller's conditions and never reuses its parameter names", async () => {
    const qb = ds.getRepository(ItemEntity).createQueryBuilder('i').where('i.code LIKE :lq_0', { lq_0: 'A%' });
    const rows = await applyListQuery(
      qb,
      items,
      parseListQuery(items, { enabled: 'true', sort: 'code' }),
      'i',
    ).getMany();
    expect(rows.map((r) => r.code)).toEqual(['A1']);
  });

  it('compares a field stored in NFC with filter values in NFC: an NFD spelling finds it', async () => {
    const nfc = declareResource({ ...items, fields: { ...items.fields, code: { type: 'string', normalized: true } } });
    const nfd = 'Ac\u0327ai\u0301-500';
    await ds.query(`INSERT INTO items (_id, code, created_at) VALUES ($1, $2, $3)`, [id(99), 'Açaí-500', T2]);
    try {
      const find = async (decl: typeof items, raw: Record<string, unknown>) =>
        (
          await applyListQuery(
            ds.getRepository(ItemEntity).createQueryBuilder('i'),
            decl,
            parseListQuery(decl, raw),
            'i',
          ).getMany()
        ).map((r) => r.code);
      expect(await find(nfc, { code: nfd })).toEqual(['Açaí-500']);
      expect(await find(nfc, { code_in: `A1,${nfd}`, sort: 'code' })).toEqual(['A1', 'Açaí-500']);
      expect(await find(nfc, { code_nin: nfd, code_ne: 'A1', sort: 'code' })).not.toContain('Açaí-500');
      // A field not declared so compares the bytes as given.
      expect(await find(items, { code: nfd })).toEqual([]);
    } finally {
      await ds.query(`DELETE FROM items WHERE _id = $1`, [id(99)]);
    }
  });

  it('validates a query that did not come from the parser before building SQL', () => {
    const bad: ListQuery = {
      page: 1,
      limit: 10,
      skip: 0,
      sort: [],
      filters: [{ field: 'price', op: 'gt', values: ['cheap'] }],
      expand: [],
    };
    expect(() => run(bad)).toThrow(ValidationError);
  });
});
