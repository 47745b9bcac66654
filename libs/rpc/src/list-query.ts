import type { common } from '@pim/contracts';
import type { FilterOp, ListQuery } from '@pim/query';

/**
 * The parsed list query as the proto message every List RPC takes (gateway side). A positive skip
 * wins on the owner's side, so the page goes only with a zero skip: skip 2^31 - 1 with limit 1 is
 * page 2^31, one past what the int32 field holds.
 */
export function toProtoListQuery(q: ListQuery): common.ListQuery {
  return {
    page: q.skip > 0 ? 0 : q.page,
    limit: q.limit,
    skip: q.skip,
    sort: q.sort.map((s) => ({ field: s.field, direction: s.direction })),
    filters: q.filters.map((f) => ({ field: f.field, op: f.op, values: f.values })),
    search: q.search ?? '',
    expand: q.expand,
  };
}

/**
 * A List RPC's proto query as the query lib's shape (owner side; the owner validates it again).
 * A window given by skip alone (page 0, as toProtoListQuery sends it) gets its page back.
 */
export function fromProtoListQuery(q: common.ListQuery | undefined): ListQuery {
  const byskip = q !== undefined && q.page === 0 && q.skip > 0 && q.limit > 0;
  return {
    page: byskip ? Math.floor(q.skip / q.limit) + 1 : (q?.page ?? 1),
    limit: q?.limit ?? 25,
    skip: q?.skip ?? 0,
    sort: (q?.sort ?? []).map((s) => ({ field: s.field, direction: s.direction === 'desc' ? 'desc' : 'asc' })),
    search: q?.search || undefined,
    filters: (q?.filters ?? []).map((f) => ({ field: f.field, op: f.op as FilterOp, values: f.values })),
    expand: q?.expand ?? [],
  };
}
