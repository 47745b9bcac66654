import type { ListQuery } from '@pim/query';
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
