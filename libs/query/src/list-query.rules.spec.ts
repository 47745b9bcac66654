import { MAX_SKIP, parseListQuery, validateListQuery, type ListQuery } from './index';
import { DEEP_PAGING, maxPage, resolveLimits, settleWindow } from './list-query.rules';
import { things, validationErrorOf } from './things.fixture';

const limits = resolveLimits();
const parseFailure = (raw: Record<string, unknown>) => validationErrorOf(() => parseListQuery(things, raw));
const structured = (q: Partial<ListQuery>): ListQuery => ({
  page: 1,
  limit: 25,
  skip: 0,
  sort: [],
  filters: [],
  expand: [],
  ...q,
});

// The window of a list crosses gRPC as int32 (ListQuery.skip), so no way of asking for it may
// start past MAX_SKIP records: not skip, not (page - 1) × limit, not a page or skip past 2^53.
describe('the deepest window a list allows', () => {
  it('is int32 max, and the last page of a limit is the one starting there or before', () => {
    expect(MAX_SKIP).toBe(2 ** 31 - 1);
    expect(maxPage(1)).toBe(2 ** 31);
    expect(maxPage(25)).toBe(85_899_346);
    expect((maxPage(25) - 1) * 25).toBeLessThanOrEqual(MAX_SKIP);
    expect(maxPage(25) * 25).toBeGreaterThan(MAX_SKIP);
    expect((maxPage(100) - 1) * 100).toBeLessThanOrEqual(MAX_SKIP);
  });

  describe('in the query string', () => {
    it('takes skip up to the maximum, and page up to the last page of its limit', () => {
      expect(parseListQuery(things, { skip: String(MAX_SKIP) })).toMatchObject({ skip: MAX_SKIP, page: 85_899_346 });
      expect(parseListQuery(things, { skip: String(MAX_SKIP), limit: '1' })).toMatchObject({
        skip: MAX_SKIP,
        page: 2 ** 31,
      });
      expect(parseListQuery(things, { page: '85899346' })).toMatchObject({ page: 85_899_346, skip: 2_147_483_625 });
      expect(parseListQuery(things, { page: String(2 ** 31), limit: '1' })).toMatchObject({ skip: MAX_SKIP });
    });

    it.each(['2147483648', '4294967296', '9007199254740991', '9007199254740992', '9'.repeat(400)])(
      'refuses skip=%s naming the maximum and how to read further',
      (skip) => {
        const err = parseFailure({ skip });
        expect(err.details).toEqual([{ field: 'skip', message: expect.stringContaining('at most 2147483647') }]);
        expect(err.solution).toBe(DEEP_PAGING);
        expect(err.solution).toMatch(/sort=_id.*_id_gt=<the last _id of the previous page>/);
      },
    );

    it.each([
      ['85899347', '25'],
      ['99999999999', '25'],
      ['2147483649', '1'],
      ['21474838', '100'],
      ['9007199254740993', '1'],
      ['1' + '0'.repeat(400), '25'],
    ])('refuses page=%s with limit %s, naming the last page of that limit', (page, limit) => {
      const err = parseFailure({ page, limit });
      expect(err.details).toEqual([
        { field: 'page', message: expect.stringContaining(`at most ${maxPage(Number(limit))} with limit ${limit}`) },
      ]);
      expect(err.message).toContain('2147483647');
      expect(err.solution).toBe(DEEP_PAGING);
    });

    it('judges a page by the limit sent with it, and lets a valid skip win over a deep page', () => {
      expect(parseListQuery(things, { page: '85899347', limit: '1' }).skip).toBe(85_899_346);
      expect(parseListQuery(things, { page: '99999999999', skip: '10' })).toMatchObject({ skip: 10, page: 1 });
      // With a refused limit the page's maximum is not known: only the limit is named.
      expect(parseFailure({ page: '99999999999', limit: '500' }).details?.map((d) => d.field)).toEqual(['limit']);
    });
  });

  describe('in a structured query (as a List RPC receives it)', () => {
    it('takes the same windows', () => {
      expect(settleWindow({ page: 0, limit: 1, skip: MAX_SKIP }, limits)).toMatchObject({
        skip: MAX_SKIP,
        page: 2 ** 31,
        problems: [],
      });
      expect(settleWindow({ page: 85_899_346, limit: 25, skip: 0 }, limits)).toMatchObject({
        skip: 2_147_483_625,
        problems: [],
      });
    });

    it.each([
      [{ skip: MAX_SKIP + 1, limit: 25 }, 'skip'],
      [{ skip: Number.MAX_SAFE_INTEGER, limit: 25 }, 'skip'],
      [{ page: 85_899_347, limit: 25 }, 'page'],
      [{ page: MAX_SKIP, limit: 100 }, 'page'],
    ])('refuses %j on its field', (w, field) => {
      const settled = settleWindow(w, limits);
      expect(settled.problems).toEqual([{ field, message: expect.stringMatching(/at most/), solution: DEEP_PAGING }]);
      expect(validationErrorOf(() => validateListQuery(things, structured(w))).details?.[0].field).toBe(field);
    });
  });
});
