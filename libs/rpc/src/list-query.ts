import type { common } from '@pim/contracts';
import type { FilterOp, ListQuery } from '@pim/query';

/** The parsed list query as the proto message every List RPC takes (gateway side). */
export function toProtoListQuery(q: ListQuery): common.ListQuery {
  return {
    page: q.page,
    limit: q.limit,
    skip: q.skip,
    sort: q.sort.map((s) => ({ field: s.field, direction: s.direction })),
    filters: q.filters.map((f) => ({ field: f.field, op: f.op, values: f.values })),
    search: q.search ?? '',
    expand: q.expand,
  };
}

/** A List RPC's proto query as the query lib's shape (owner side; the owner validates it again). */
export function fromProtoListQuery(q: common.ListQuery | undefined): ListQuery {
  return {
    page: q?.page ?? 1,
    limit: q?.limit ?? 25,
    skip: q?.skip ?? 0,
    sort: (q?.sort ?? []).map((s) => ({ field: s.field, direction: s.direction === 'desc' ? 'desc' : 'asc' })),
    search: q?.search || undefined,
    filters: (q?.filters ?? []).map((f) => ({ field: f.field, op: f.op as FilterOp, values: f.values })),
    expand: q?.expand ?? [],
  };
}
