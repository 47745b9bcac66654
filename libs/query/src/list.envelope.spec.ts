import { LIST_ENVELOPE_KEYS } from './list.envelope';
import { buildEnvelope, parseListQuery } from './index';
import { things } from './things.fixture';

const PATH = '/api/v1/things';

/** An envelope for a raw query string's parameters, with `total` matches and a page of fake rows. */
function envelope(raw: Record<string, unknown>, total: number, withDecl = true) {
  const query = parseListQuery(things, raw);
  const data = Array.from({ length: Math.max(0, Math.min(query.limit, total - query.skip)) }, (_, i) => ({
    n: query.skip + i,
  }));
  return buildEnvelope({ query, total, data, path: PATH, raw, decl: withDecl ? things : undefined });
}

describe('buildEnvelope', () => {
  it('has exactly the 12 keys of the interface, in order', () => {
    expect(Object.keys(envelope({}, 3))).toEqual([...LIST_ENVELOPE_KEYS]);
  });

  it('shows the sort as an object in sort order, without the _id tie-break', () => {
    expect(envelope({}, 0).sort).toEqual({ created_at: 'desc' });
    const sort = envelope({ sort: 'collection,-version' }, 0).sort;
    expect(Object.entries(sort)).toEqual([
      ['collection', 'asc'],
      ['version', 'desc'],
    ]);
  });

  it('links only forward on the first page', () => {
    const e = envelope({ limit: '10', enabled: 'true' }, 25);
    expect(e).toMatchObject({ page: 1, skip: 0, limit: 10, pages: 3, total: 25, next: true, previous: false });
    expect(e.nextUrl).toBe(`${PATH}?limit=10&enabled=true&page=2`);
    expect(e.previousUrl).toBe(false);
    expect(e.data).toHaveLength(10);
  });

  it('links both ways on a middle page, keeping every other parameter where it was', () => {
    const e = envelope(
      { sort: '-created_at,collection', page: '2', limit: '10', collection_in: 'a,b', _search: 'café & co' },
      25,
    );
    expect(e).toMatchObject({ page: 2, skip: 10, next: true, previous: true });
    expect(e.nextUrl).toBe(
      `${PATH}?sort=-created_at,collection&page=3&limit=10&collection_in=a,b&_search=caf%C3%A9%20%26%20co`,
    );
    expect(e.previousUrl).toBe(
      `${PATH}?sort=-created_at,collection&page=1&limit=10&collection_in=a,b&_search=caf%C3%A9%20%26%20co`,
    );
  });

  it('links only backward on the last page', () => {
    const e = envelope({ page: '3', limit: '10' }, 25);
    expect(e).toMatchObject({ page: 3, pages: 3, next: false, previous: true, nextUrl: '' });
    expect(e.previousUrl).toBe(`${PATH}?page=2&limit=10`);
    expect(e.data).toHaveLength(5);
  });

  it('has no pages and no links when nothing matches', () => {
    const e = envelope({ collection: 'none' }, 0);
    expect(e).toMatchObject({
      page: 1,
      skip: 0,
      limit: 25,
      pages: 0,
      total: 0,
      next: false,
      previous: false,
      nextUrl: '',
      previousUrl: false,
      data: [],
    });
  });

  it('points back from a page past the end', () => {
    const e = envelope({ page: '9', limit: '10' }, 25);
    expect(e).toMatchObject({ pages: 3, next: false, previous: true, nextUrl: '' });
    expect(e.previousUrl).toBe(`${PATH}?page=8&limit=10`);
  });

  it('turns skip into page in the links', () => {
    const e = envelope({ skip: '20', limit: '10', expand: ['brand', 'categories'] }, 45);
    expect(e).toMatchObject({ page: 3, skip: 20 });
    expect(e.nextUrl).toBe(`${PATH}?limit=10&expand=brand&expand=categories&page=4`);
    expect(e.previousUrl).toBe(`${PATH}?limit=10&expand=brand&expand=categories&page=2`);
  });

  it('counts a partial last page', () => {
    expect(envelope({ limit: '10' }, 10).pages).toBe(1);
    expect(envelope({ limit: '10' }, 11).pages).toBe(2);
  });

  it('shows the filters keyed like the query, with typed values', () => {
    const e = envelope(
      {
        enabled: 'true',
        collection_in: 'a,b',
        version_gte: '2',
        url_exists: 'false',
        created_at_lt: '2024-01-01',
        collection_ne: 'true',
      },
      1,
    );
    expect(e.filters).toEqual({
      enabled: true,
      collection_in: ['a', 'b'],
      version_gte: 2,
      url_exists: false,
      created_at_lt: '2024-01-01',
      collection_ne: 'true',
    });
  });

  it('types only booleans when it has no declaration', () => {
    const e = envelope({ enabled: 'true', version_in: '1,2', url_exists: 'true' }, 1, false);
    expect(e.filters).toEqual({ enabled: true, version_in: ['1', '2'], url_exists: true });
  });

  it('ignores a query string already on the path', () => {
    const query = parseListQuery(things, { limit: '1' });
    const e = buildEnvelope({ query, total: 2, data: [], path: `${PATH}?stale=1`, raw: { limit: '1' } });
    expect(e.nextUrl).toBe(`${PATH}?limit=1&page=2`);
  });
});
