import type { common, webhooks as pb } from '@pim/contracts';
import type { ListQuery } from '@pim/query';
import type { WebhookView } from '@pim/resources';

/** View → proto message (`_id` travels as `id`). */
export function toMessage(v: WebhookView): pb.Webhook {
  return {
    id: v._id,
    collection: v.collection,
    url: v.url,
    headers: v.headers,
    body: v.body,
    enabled: v.enabled,
    version: v.version,
    created_at: v.created_at,
    updated_at: v.updated_at,
    created_by_name: v.created_by_name,
  };
}

/** Proto list query → the query lib's shape. */
export function fromListQuery(q: common.ListQuery | undefined): ListQuery {
  return {
    page: q?.page ?? 1,
    limit: q?.limit ?? 25,
    skip: q?.skip ?? 0,
    sort: (q?.sort ?? []).map((s) => ({ field: s.field, direction: s.direction === 'desc' ? 'desc' : 'asc' })),
    search: q?.search || undefined,
    filters: (q?.filters ?? []).map((f) => ({ field: f.field, op: f.op as ListQuery['filters'][number]['op'], values: f.values })),
    expand: q?.expand ?? [],
  };
}
