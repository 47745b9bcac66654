import { sortWithTieBreak } from './index';

describe('sortWithTieBreak', () => {
  it('ends the sort with _id in the direction of the last key', () => {
    expect(
      sortWithTieBreak([
        { field: 'code', direction: 'asc' },
        { field: 'created_at', direction: 'desc' },
      ]),
    ).toEqual([
      { field: 'code', direction: 'asc' },
      { field: 'created_at', direction: 'desc' },
      { field: '_id', direction: 'desc' },
    ]);
    expect(sortWithTieBreak([{ field: 'code', direction: 'asc' }])).toEqual([
      { field: 'code', direction: 'asc' },
      { field: '_id', direction: 'asc' },
    ]);
  });

  it('adds nothing when _id is already a key', () => {
    const sort = [
      { field: '_id', direction: 'asc' as const },
      { field: 'code', direction: 'desc' as const },
    ];
    expect(sortWithTieBreak(sort)).toEqual(sort);
  });
});
