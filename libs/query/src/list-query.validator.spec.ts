import { parseListQuery, validateListQuery, type ListQuery } from './index';
import { things, validationErrorOf } from './things.fixture';

const query = (q: Partial<ListQuery> = {}): ListQuery => ({
  page: 1,
  limit: 25,
  skip: 0,
  sort: [],
  filters: [],
  expand: [],
  ...q,
});
const failure = (q: ListQuery, opts?: { maxLimit?: number }) =>
  validationErrorOf(() => validateListQuery(things, q, opts));

describe('validateListQuery', () => {
  it('returns what the parser produced unchanged', () => {
    const parsed = parseListQuery(things, {
      page: '2',
      limit: '10',
      sort: 'collection,-version',
      _search: 'café',
      collection_in: 'a,b',
      created_at_gte: '2024-01-01',
      expand: 'brand',
    });
    expect(validateListQuery(things, parsed)).toEqual(parsed);
  });

  it('fills proto3 defaults: empty sort, empty search, missing lists', () => {
    const q = validateListQuery(things, { page: 1, limit: 10, skip: 0, search: '', sort: [] } as unknown as ListQuery);
    expect(q).toEqual({
      page: 1,
      limit: 10,
      skip: 0,
      sort: [{ field: 'created_at', direction: 'desc' }],
      filters: [],
      expand: [],
    });
  });

  it('settles page and skip: a positive skip wins, otherwise skip comes from page', () => {
    expect(validateListQuery(things, query({ page: 3, limit: 10, skip: 0 }))).toMatchObject({ page: 3, skip: 20 });
    expect(validateListQuery(things, query({ page: 0, limit: 10, skip: 35 }))).toMatchObject({ page: 4, skip: 35 });
  });

  it('refuses a bad window', () => {
    expect(failure(query({ page: 0 })).details).toEqual([
      { field: 'page', message: "page must be a whole number from 1, got '0'" },
    ]);
    expect(failure(query({ limit: 101 })).details?.[0].field).toBe('limit');
    expect(failure(query({ limit: 1.5 })).details?.[0].field).toBe('limit');
    expect(failure(query({ skip: -3 })).details?.[0].field).toBe('skip');
    expect(validateListQuery(things, query({ limit: 500 }), { maxLimit: 1000 }).limit).toBe(500);
  });

  it('refuses unknown or unsortable sort fields and bad directions', () => {
    expect(failure(query({ sort: [{ field: 'name', direction: 'asc' }] })).message).toMatch(
      /^Cannot sort by 'name'\. Sortable fields: /,
    );
    expect(failure(query({ sort: [{ field: 'version', direction: 'up' as 'asc' }] })).message).toBe(
      "Sort direction of 'version' must be asc or desc",
    );
  });

  it('refuses unknown fields, operators and values in filters, naming the allowed filters', () => {
    expect(failure(query({ filters: [{ field: 'nosuch', op: 'eq', values: ['1'] }] })).message).toMatch(
      /^Unknown filter 'nosuch'\. Allowed filters: _id, /,
    );
    expect(failure(query({ filters: [{ field: 'collection', op: 'gt', values: ['a'] }] })).details?.[0].field).toBe(
      'collection_gt',
    );
    expect(failure(query({ filters: [{ field: 'version', op: 'eq', values: ['x'] }] })).details?.[0].message).toBe(
      "Filter 'version' expects a number such as 42 or -1.5, got 'x'",
    );
    expect(failure(query({ filters: [{ field: 'version', op: 'eq', values: ['1', '2'] }] })).details?.[0].message).toBe(
      "Filter 'version' takes exactly one value, got 2",
    );
    expect(failure(query({ filters: [{ field: 'version', op: 'in', values: [] }] })).details?.[0].message).toBe(
      "Filter 'version_in' needs at least one value",
    );
    expect(
      failure(query({ filters: [{ field: 'version', op: 'like' as 'eq', values: ['1'] }] })).details?.[0].field,
    ).toBe('filters');
    expect(
      failure(query({ filters: [{ field: 'version', op: 'eq', values: [1 as unknown as string] }] })).details?.[0]
        .field,
    ).toBe('filters');
  });

  it('refuses search without searchable fields and unknown expansions', () => {
    const plain = {
      collection: 'plain',
      fields: { _id: { type: 'id' as const }, created_at: { type: 'date' as const } },
    };
    expect(validationErrorOf(() => validateListQuery(plain, query({ search: 'x' }))).details?.[0].field).toBe(
      '_search',
    );
    expect(failure(query({ expand: ['owner'] })).message).toBe("Cannot expand 'owner'. Allowed: brand, categories");
  });

  it('refuses shapes that are not a list query', () => {
    expect(failure(query({ sort: 'created_at' as unknown as ListQuery['sort'] })).details?.[0].field).toBe('sort');
    expect(failure(query({ expand: 'brand' as unknown as string[] })).details?.[0].field).toBe('expand');
    expect(failure(query({ filters: {} as unknown as ListQuery['filters'] })).details?.[0].field).toBe('filters');
    expect(failure(null as unknown as ListQuery).details?.[0].field).toBe('(query)');
  });
});
