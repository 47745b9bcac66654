import { parseListQuery } from './index';
import { things, validationErrorOf } from './things.fixture';

const ID_A = '6740a1b2c3d4e5f601234567';
const ID_B = '6740a1b2c3d4e5f601234568';
const parse = (raw: Record<string, unknown>, opts?: { maxLimit?: number; defaultLimit?: number }) =>
  parseListQuery(things, raw, opts);
const failure = (raw: Record<string, unknown>, opts?: { maxLimit?: number; defaultLimit?: number }) =>
  validationErrorOf(() => parse(raw, opts));
const ALLOWED =
  'Allowed filters: _id, collection, url, enabled, version, created_at, tags, meta, brand_id, category_ids';

describe('parseListQuery', () => {
  describe('defaults', () => {
    it('gives page 1 of 25, sorted by -created_at, with no filters', () => {
      expect(parse({})).toEqual({
        page: 1,
        limit: 25,
        skip: 0,
        sort: [{ field: 'created_at', direction: 'desc' }],
        filters: [],
        expand: [],
      });
    });

    it('takes the default limit and the cap from the options', () => {
      expect(parse({}, { defaultLimit: 10 }).limit).toBe(10);
      expect(parse({ limit: '500' }, { maxLimit: 500 }).limit).toBe(500);
      expect(failure({ limit: '11' }, { maxLimit: 10 }).message).toBe(
        "limit must be a whole number from 1 to 10, got '11'",
      );
    });

    it('refuses options that contradict each other', () => {
      expect(() => parse({}, { maxLimit: 10, defaultLimit: 20 })).toThrow(/defaultLimit/);
      expect(() => parse({}, { maxLimit: 0 })).toThrow(/maxLimit/);
    });

    it("uses the declaration's default sort", () => {
      const q = parseListQuery({ ...things, defaultSort: 'collection,-version' }, {});
      expect(q.sort).toEqual([
        { field: 'collection', direction: 'asc' },
        { field: 'version', direction: 'desc' },
      ]);
    });
  });

  describe('window', () => {
    it('derives skip from page and limit', () => {
      expect(parse({ page: '3', limit: '10' })).toMatchObject({ page: 3, limit: 10, skip: 20 });
    });

    it('lets skip win over page and derives the page from it', () => {
      expect(parse({ skip: '45', limit: '10' })).toMatchObject({ page: 5, limit: 10, skip: 45 });
      expect(parse({ skip: '0', page: '7' })).toMatchObject({ page: 1, skip: 0 });
      expect(parse({ skip: '25' })).toMatchObject({ page: 2, limit: 25, skip: 25 });
    });

    it.each([['0'], ['-1'], ['1.5'], ['abc'], [''], ['1e3']])('refuses page=%p', (page) => {
      const err = failure({ page });
      expect(err.message).toBe(`page must be a whole number from 1, got '${page}'`);
      expect(err.details).toEqual([{ field: 'page', message: err.message }]);
      expect(err.solution).toMatch(/page=1/);
    });

    it.each([['0'], ['-5'], ['2.5'], ['101'], ['ten']])('refuses limit=%p', (limit) => {
      expect(failure({ limit }).message).toBe(`limit must be a whole number from 1 to 100, got '${limit}'`);
    });

    it.each([['-1'], ['x'], ['1.2']])('refuses skip=%p', (skip) => {
      expect(failure({ skip }).details).toEqual([
        { field: 'skip', message: `skip must be a whole number from 0, got '${skip}'` },
      ]);
    });

    it('refuses a page so far out that its offset is not a safe integer', () => {
      expect(failure({ page: '999999999999999999' }).details?.[0].field).toBe('page');
      expect(failure({ page: String(Number.MAX_SAFE_INTEGER), limit: '100' }).details?.[0].field).toBe('page');
    });

    it('refuses repeated window parameters', () => {
      expect(failure({ page: ['1', '2'] }).message).toBe("'page' was given 2 times");
      expect(failure({ limit: ['10', '10'] }).details?.[0].field).toBe('limit');
    });
  });

  describe('sort', () => {
    it('reads - as descending and several fields by comma', () => {
      expect(parse({ sort: '-created_at,collection' }).sort).toEqual([
        { field: 'created_at', direction: 'desc' },
        { field: 'collection', direction: 'asc' },
      ]);
      expect(parse({ sort: '+version' }).sort).toEqual([{ field: 'version', direction: 'asc' }]);
    });

    it('falls back to the default sort when sort is empty', () => {
      expect(parse({ sort: '' }).sort).toEqual([{ field: 'created_at', direction: 'desc' }]);
    });

    it('names the sortable fields when a field is unknown or not sortable', () => {
      const sortable = 'Sortable fields: _id, collection, url, enabled, version, created_at, brand_id';
      expect(failure({ sort: 'nosuch' }).message).toBe(`Cannot sort by 'nosuch'. ${sortable}`);
      expect(failure({ sort: '-name' }).message).toBe(`Cannot sort by 'name'. ${sortable}`);
      expect(failure({ sort: 'tags' }).details).toEqual([
        { field: 'sort', message: `Cannot sort by 'tags'. ${sortable}` },
      ]);
    });

    it('refuses a field named twice or a lone sign', () => {
      expect(failure({ sort: 'version,-version' }).message).toBe("sort names 'version' twice");
      expect(failure({ sort: '-' }).message).toBe("sort item '-' names no field");
    });

    it('refuses a repeated sort parameter', () => {
      expect(failure({ sort: ['version', 'collection'] }).details?.[0].field).toBe('sort');
    });
  });

  describe('_search', () => {
    it('keeps the trimmed text', () => {
      expect(parse({ _search: '  café ' }).search).toBe('café');
    });

    it('ignores an empty search', () => {
      expect(parse({ _search: '' })).not.toHaveProperty('search');
      expect(parse({ _search: '   ' })).not.toHaveProperty('search');
    });

    it('refuses a search on a collection with no searchable fields', () => {
      const plain = {
        collection: 'plain',
        fields: { _id: { type: 'id' as const }, created_at: { type: 'date' as const } },
      };
      const err = validationErrorOf(() => parseListQuery(plain, { _search: 'x' }));
      expect(err.message).toBe("The collection 'plain' has no searchable fields, so _search is not supported");
      expect(err.details).toEqual([{ field: '_search', message: err.message }]);
      expect(parseListQuery(plain, { _search: '' }).search).toBeUndefined();
    });
  });

  describe('expand', () => {
    it('takes a comma list of declared names, also repeated, once each', () => {
      expect(parse({ expand: 'brand,categories' }).expand).toEqual(['brand', 'categories']);
      expect(parse({ expand: ['brand', 'categories,brand'] }).expand).toEqual(['brand', 'categories']);
      expect(parse({ expand: '' }).expand).toEqual([]);
    });

    it('names the allowed expansions when one is unknown', () => {
      const err = failure({ expand: 'brand,owner' });
      expect(err.message).toBe("Cannot expand 'owner'. Allowed: brand, categories");
      expect(err.details).toEqual([{ field: 'expand', message: err.message }]);
    });

    it('says when a collection has nothing to expand', () => {
      const plain = {
        collection: 'plain',
        fields: { _id: { type: 'id' as const }, created_at: { type: 'date' as const } },
      };
      expect(validationErrorOf(() => parseListQuery(plain, { expand: 'x' })).message).toBe(
        "The collection 'plain' has nothing to expand (got 'x')",
      );
    });
  });

  describe('filters', () => {
    it('reads equality and every operator into strings', () => {
      const q = parse({
        collection: 'products',
        url_ne: 'https://a.example',
        collection_in: 'orders,imports',
        collection_nin: 'users',
        version_gt: '1',
        version_gte: '2',
        version_lt: '10',
        version_lte: '9.5',
        created_at_gte: '2024-01-31',
        enabled_exists: 'false',
      });
      expect(q.filters).toEqual([
        { field: 'collection', op: 'eq', values: ['products'] },
        { field: 'url', op: 'ne', values: ['https://a.example'] },
        { field: 'collection', op: 'in', values: ['orders', 'imports'] },
        { field: 'collection', op: 'nin', values: ['users'] },
        { field: 'version', op: 'gt', values: ['1'] },
        { field: 'version', op: 'gte', values: ['2'] },
        { field: 'version', op: 'lt', values: ['10'] },
        { field: 'version', op: 'lte', values: ['9.5'] },
        { field: 'created_at', op: 'gte', values: ['2024-01-31'] },
        { field: 'enabled', op: 'exists', values: ['false'] },
      ]);
    });

    it('supports _id with sets and ranges (ids are time-ordered)', () => {
      expect(parse({ _id_in: `${ID_A},${ID_B}`, _id_gt: ID_A, _id: ID_B }).filters).toEqual([
        { field: '_id', op: 'in', values: [ID_A, ID_B] },
        { field: '_id', op: 'gt', values: [ID_A] },
        { field: '_id', op: 'eq', values: [ID_B] },
      ]);
    });

    it('joins repeated set filters and accepts typed values from code', () => {
      expect(parse({ collection_in: ['a,b', 'c'] }).filters).toEqual([
        { field: 'collection', op: 'in', values: ['a', 'b', 'c'] },
      ]);
      expect(parse({ enabled: true, version: 3 }).filters).toEqual([
        { field: 'enabled', op: 'eq', values: ['true'] },
        { field: 'version', op: 'eq', values: ['3'] },
      ]);
    });

    it('allows array fields, id arrays and _exists on a filterable object', () => {
      expect(
        parse({ tags: 'red', tags_nin: 'blue,green', category_ids_in: ID_A, meta_exists: 'true' }).filters,
      ).toHaveLength(4);
    });

    it('names the allowed filters for an unknown field', () => {
      const err = failure({ nosuchfield: 'x' });
      expect(err.message).toBe(`Unknown filter 'nosuchfield'. ${ALLOWED}`);
      expect(err.details).toEqual([{ field: 'nosuchfield', message: "Unknown filter 'nosuchfield'" }]);
      expect(err.solution).toMatch(/<field>_in=a,b/);
      expect(err.title).toBe('Invalid list query');
    });

    it('treats an unknown suffix or an unknown base as an unknown filter', () => {
      expect(failure({ version_between: '1' }).message).toBe(`Unknown filter 'version_between'. ${ALLOWED}`);
      expect(failure({ nosuch_in: 'a' }).message).toBe(`Unknown filter 'nosuch_in'. ${ALLOWED}`);
      expect(failure({ nosuch_eq: '1' }).message).toBe(`Unknown filter 'nosuch_eq'. ${ALLOWED}`);
    });

    it('reads _eq as equality, said explicitly', () => {
      expect(parseListQuery(things, { version_eq: '1' }).filters).toEqual([
        { field: 'version', op: 'eq', values: ['1'] },
      ]);
    });

    it('refuses fields that cannot be filtered', () => {
      expect(failure({ name: 'x' }).message).toBe(`Field 'name' cannot be filtered. ${ALLOWED}`);
      expect(failure({ headers_exists: 'true' }).message).toBe(`Field 'headers' cannot be filtered. ${ALLOWED}`);
    });

    it('refuses operators the type does not have, listing the ones it has', () => {
      expect(failure({ collection_gt: 'a' }).message).toBe(
        `Operator 'gt' is not allowed on 'collection' (string); use collection=, collection_in=, collection_nin=, collection_ne=, collection_exists=. ${ALLOWED}`,
      );
      expect(failure({ enabled_lte: 'true' }).details?.[0].field).toBe('enabled_lte');
      expect(failure({ tags_gte: 'a' }).details?.[0].field).toBe('tags_gte');
      expect(failure({ meta: 'x' }).message).toMatch(
        /^Operator 'eq' is not allowed on 'meta' \(object\); use meta_exists=\./,
      );
    });

    it.each([
      ['version', 'abc', 'a number such as 42 or -1.5'],
      ['version_gt', '', 'a number such as 42 or -1.5'],
      ['version', '0x10', 'a number such as 42 or -1.5'],
      ['version', '1e999', 'a number such as 42 or -1.5'],
      ['enabled', 'yes', 'true or false'],
      ['enabled', 'TRUE', 'true or false'],
      ['created_at_gte', 'yesterday', 'an ISO 8601 date such as 2024-01-31 or 2024-01-31T12:00:00.000Z'],
      ['created_at_gte', '2024-02-30', 'an ISO 8601 date such as 2024-01-31 or 2024-01-31T12:00:00.000Z'],
      ['created_at_lt', '2024-01-31T25:00:00Z', 'an ISO 8601 date such as 2024-01-31 or 2024-01-31T12:00:00.000Z'],
      ['created_at_lt', '2024-01-31T10:00:00 02:00', 'an ISO 8601 date such as 2024-01-31 or 2024-01-31T12:00:00.000Z'],
      ['_id', '6740A1B2C3D4E5F601234567', 'an id of 24 lowercase hexadecimal characters'],
      ['brand_id_in', `${ID_A},nope`, 'an id of 24 lowercase hexadecimal characters'],
      ['category_ids', 'short', 'an id of 24 lowercase hexadecimal characters'],
    ])('refuses %s=%p, saying what it expects', (key, value, expected) => {
      const err = failure({ [key]: value });
      const bad = key === 'brand_id_in' ? 'nope' : value;
      expect(err.message).toBe(`Filter '${key}' expects ${expected}, got '${bad}'. ${ALLOWED}`);
      expect(err.details).toEqual([{ field: key, message: `Filter '${key}' expects ${expected}, got '${bad}'` }]);
    });

    it.each([
      ['2024-01-31'],
      ['2024-02-29'],
      ['2024-01-31T12:00'],
      ['2024-01-31T12:00:00Z'],
      ['2024-01-31T12:00:00.123456Z'],
      ['2024-01-31T12:00:00+02:00'],
      ['2024-01-31T12:00:00-0300'],
    ])('accepts the ISO 8601 date %p', (date) => {
      expect(parse({ created_at_lt: date }).filters[0].values).toEqual([date]);
    });

    it.each([['42'], ['-1.5'], ['.5'], ['1e3'], ['0']])('accepts the number %p', (n) => {
      expect(parse({ version: n }).filters[0].values).toEqual([n]);
    });

    it('checks _exists values', () => {
      expect(failure({ url_exists: 'maybe' }).message).toBe(
        `Filter 'url_exists' expects true or false, got 'maybe'. ${ALLOWED}`,
      );
    });

    it('refuses empty sets and empty items', () => {
      expect(failure({ collection_in: '' }).message).toBe(
        `Filter 'collection_in' needs at least one value. ${ALLOWED}`,
      );
      expect(failure({ collection_nin: 'a,,b' }).message).toBe(
        `Filter 'collection_nin' has an empty value in its list. ${ALLOWED}`,
      );
      expect(failure({ tags: '' }).message).toBe(`Filter 'tags' needs a value to look for. ${ALLOWED}`);
    });

    it('allows an empty string where equality to it means something', () => {
      expect(parse({ url: '' }).filters).toEqual([{ field: 'url', op: 'eq', values: [''] }]);
    });

    it('refuses repeated single-valued filters and non-plain values', () => {
      expect(failure({ collection: ['a', 'b'] }).message).toBe(`Filter 'collection' was given 2 times. ${ALLOWED}`);
      expect(failure({ collection: { $ne: 'a' } }).message).toBe("'collection' must be a plain value");
    });

    it('refuses NUL characters, which Postgres text cannot hold', () => {
      expect(failure({ collection: 'a\u0000b' }).details?.[0].field).toBe('collection');
    });

    it('reports every problem at once', () => {
      const err = failure({ page: '0', sort: 'nosuch', nosuch: '1', enabled: 'maybe' });
      expect(err.details?.map((d) => d.field)).toEqual(['page', 'sort', 'nosuch', 'enabled']);
      expect(err.message).toMatch(
        /^page must be .*; Cannot sort by 'nosuch'.*; Unknown filter 'nosuch'; Filter 'enabled' expects true or false, got 'maybe'\. Allowed filters: /,
      );
    });
  });
});
