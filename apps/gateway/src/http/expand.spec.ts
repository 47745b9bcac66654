import { declareResource } from '@pim/query';
import type { Principal } from '../auth/scopes';
import { expandRecords, type BatchLoader } from './expand';

const decl = declareResource({
  collection: 'products',
  fields: {
    _id: { type: 'id' },
    created_at: { type: 'date' },
    brand_id: { type: 'id', expand: { as: 'brand', collection: 'brands' } },
    categories: { type: 'id[]', expand: { as: 'categories', collection: 'categories' } },
    catalogs: { type: 'array', expand: { as: 'catalogs', collection: 'catalogs' } },
  },
});
const admin: Principal = { keyId: 'k', prefix: 'p', scopes: ['admin'], user_name: 'tester', key_name: 'test' };
const [P1, P2, C1, C2, GONE, K1] = ['a1', 'a2', 'c1', 'c2', 'c9', 'k1'].map((s) => s.padStart(24, '0'));

/** A loader over fixed records that remembers what it was asked for. */
function recording(records: { _id: string; code: string }[]) {
  const asked: string[][] = [];
  const load: BatchLoader = (ids) => {
    asked.push(ids);
    return Promise.resolve(records.filter((r) => ids.includes(r._id)));
  };
  return { asked, load };
}

describe('expandRecords', () => {
  it('turns a list of ids into its records in place, in order, keeping a gone id as {_id}, with one load for the page', async () => {
    const categories = recording([
      { _id: C1, code: 'one' },
      { _id: C2, code: 'two' },
    ]);
    const records = [
      { _id: P1, categories: [C2, GONE, C1] },
      { _id: P2, categories: [C1] },
    ];
    const out = await expandRecords(decl, records, ['categories'], { categories: categories.load }, admin);
    expect(out).toEqual([
      { _id: P1, categories: [{ _id: C2, code: 'two' }, { _id: GONE }, { _id: C1, code: 'one' }] },
      { _id: P2, categories: [{ _id: C1, code: 'one' }] },
    ]);
    expect(categories.asked).toEqual([[C2, GONE, C1]]);
  });

  it('leaves the ids alone when the list is not asked for, and puts link records inside their links', async () => {
    const catalogs = recording([{ _id: K1, code: 'shop' }]);
    const records = [{ _id: P1, categories: [C1], catalogs: [{ _id: K1, user_groups: [] }] }];
    const out = await expandRecords(decl, records, ['catalogs'], { catalogs: catalogs.load }, admin, {
      catalogs: 'catalog',
    });
    expect(out).toEqual([
      { _id: P1, categories: [C1], catalogs: [{ _id: K1, user_groups: [], catalog: { _id: K1, code: 'shop' } }] },
    ]);
  });

  it('needs read access to the expanded collection', async () => {
    const reader: Principal = { ...admin, scopes: ['products:read'] };
    await expect(
      expandRecords(decl, [{ _id: P1, categories: [C1] }], ['categories'], { categories: recording([]).load }, reader),
    ).rejects.toMatchObject({ status: 403 });
  });
});
