import type { webhooks as pb } from '@pim/contracts';
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
