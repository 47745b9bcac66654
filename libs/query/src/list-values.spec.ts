import { parse as parseQueryString } from 'node:querystring';
import { joinListValues, parseListQuery, readNestedFilter, splitListValues, writtenFilter } from './index';
import { declareResource } from './resource.declaration';

/** Codes real catalogs hold: a slash, a space, a hash, accents, CJK, a comma, a percent sign. */
const CODES = ['AB-12/3', 'CX 100', '#123', 'Açaí-500', '日本-1', 'FIO-2,5MM', '50%', 'C:\\temp', 'a+b'];

const products = declareResource({
  collection: 'products',
  fields: {
    _id: { type: 'id' },
    code: { type: 'string', normalized: true },
    created_at: { type: 'date' },
  },
});

/** A query string as the gateway reads it (express's `simple` parser is node:querystring), then parsed as a list query. */
const filtersOf = (queryString: string) =>
  parseListQuery(products, parseQueryString(queryString) as Record<string, unknown>).filters;

describe('splitListValues', () => {
  it('splits on commas', () => {
    expect(splitListValues('a,b,c')).toEqual(['a', 'b', 'c']);
    expect(splitListValues('a')).toEqual(['a']);
    expect(splitListValues('')).toEqual(['']);
    expect(splitListValues('a,,b')).toEqual(['a', '', 'b']);
  });

  it('reads \\, as a comma inside a value and \\\\ as a backslash; any other backslash as written', () => {
    expect(splitListValues('FIO-2\\,5MM,CX 100')).toEqual(['FIO-2,5MM', 'CX 100']);
    expect(splitListValues('ends\\\\,next')).toEqual(['ends\\', 'next']);
    expect(splitListValues('C:\\temp,x')).toEqual(['C:\\temp', 'x']);
    expect(splitListValues('trailing\\')).toEqual(['trailing\\']);
  });

  it('reads back what joinListValues writes', () => {
    expect(splitListValues(joinListValues(CODES))).toEqual(CODES);
    expect(joinListValues(['a,b', 'c\\d'])).toBe('a\\,b,c\\\\d');
  });
});

describe('code filters through the query string', () => {
  it.each(CODES)('code= finds %j percent-encoded', (code) => {
    expect(filtersOf(`code=${encodeURIComponent(code)}`)).toEqual([{ field: 'code', op: 'eq', values: [code] }]);
  });

  it('code_in= takes every code in one list, a comma inside one escaped', () => {
    const list = encodeURIComponent(joinListValues(CODES));
    expect(filtersOf(`code_in=${list}`)).toEqual([{ field: 'code', op: 'in', values: CODES }]);
    // Commas between values may be left unencoded, as page URLs write them.
    expect(filtersOf(`code_in=AB-12%2F3,CX%20100,%23123,A%C3%A7a%C3%AD-500,%E6%97%A5%E6%9C%AC-1`)).toEqual([
      { field: 'code', op: 'in', values: ['AB-12/3', 'CX 100', '#123', 'Açaí-500', '日本-1'] },
    ]);
    expect(filtersOf(`code_nin=${encodeURIComponent('FIO-2\\,5MM')}`)).toEqual([
      { field: 'code', op: 'nin', values: ['FIO-2,5MM'] },
    ]);
  });

  it('reads + as a space, as a form does: a + in a code is sent as %2B', () => {
    expect(filtersOf('code=CX+100')).toEqual([{ field: 'code', op: 'eq', values: ['CX 100'] }]);
    expect(filtersOf('code=a%2Bb')).toEqual([{ field: 'code', op: 'eq', values: ['a+b'] }]);
  });
});

describe('nested filters (attributes.<key>_in)', () => {
  it('split their values the same way', () => {
    expect(readNestedFilter(writtenFilter('attributes.size_in', 'P\\,M,G'), 'attributes.')).toEqual({
      field: 'attributes.size',
      op: 'in',
      values: ['P,M', 'G'],
    });
  });
});
