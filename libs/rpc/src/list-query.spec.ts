import { common } from '@pim/contracts';
import { MAX_SKIP, type ListQuery } from '@pim/query';
import { fromProtoListQuery, toProtoListQuery } from './list-query';

describe('list query over gRPC', () => {
  it('survives the round trip unchanged', () => {
    const q: ListQuery = {
      page: 2,
      limit: 10,
      skip: 10,
      sort: [
        { field: 'created_at', direction: 'desc' },
        { field: 'code', direction: 'asc' },
      ],
      search: 'café',
      filters: [
        { field: 'enabled', op: 'eq', values: ['true'] },
        { field: 'code', op: 'in', values: ['a', 'b'] },
      ],
      expand: ['brand'],
    };
    expect(fromProtoListQuery(toProtoListQuery(q))).toEqual(q);
  });

  it('encodes the deepest window (skip 2^31 - 1 with limit 1, page 2^31) and reads it back', () => {
    const q: ListQuery = { page: MAX_SKIP + 1, limit: 1, skip: MAX_SKIP, sort: [], filters: [], expand: [] };
    const wire = common.ListQuery.decode(common.ListQuery.encode(toProtoListQuery(q)).finish());
    expect(wire).toMatchObject({ page: 0, limit: 1, skip: MAX_SKIP });
    expect(fromProtoListQuery(wire)).toMatchObject({ page: MAX_SKIP + 1, limit: 1, skip: MAX_SKIP });
  });

  it('fills defaults for an absent query and drops an empty search', () => {
    expect(fromProtoListQuery(undefined)).toEqual({
      page: 1,
      limit: 25,
      skip: 0,
      sort: [],
      search: undefined,
      filters: [],
      expand: [],
    });
  });
});
