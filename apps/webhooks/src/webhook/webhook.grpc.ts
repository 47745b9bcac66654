import { webhooks as pb } from '@pim/contracts';
import { unary, type ServiceRegistration } from '@pim/rpc';
import type { Logger } from '@pim/logging';
import type { ListQuery } from '@pim/query';
import type { WebhookView } from '@pim/resources';
import type { common } from '@pim/contracts';
import { WebhookService } from './webhook.service';

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

/** Proto input → the plain object the service validates (absent optionals stay absent). */
function fromInput(i: pb.WebhookInput | undefined): Record<string, unknown> {
  if (!i) return {};
  const out: Record<string, unknown> = { collection: i.collection };
  if (i.url !== undefined) out.url = i.url;
  if (i.headers !== undefined) out.headers = i.headers.items;
  if (i.body !== undefined) out.body = i.body.items;
  if (i.enabled !== undefined) out.enabled = i.enabled;
  return out;
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

/** gRPC handlers of pim.webhooks.v1.WebhooksService: decode, call the service, encode. */
export function webhooksGrpc(service: WebhookService, logger: Logger): ServiceRegistration {
  const implementation: pb.WebhooksServiceServer = {
    upsertWebhook: unary(logger, 'UpsertWebhook', async (req: pb.UpsertWebhookRequest) => {
      const r = await service.upsert(fromInput(req.webhook), req.expected_version);
      return { webhook: toMessage(r.webhook), created: r.created, secret: r.secret };
    }),
    createWebhook: unary(logger, 'CreateWebhook', async (req: pb.CreateWebhookRequest) => {
      const r = await service.create(fromInput(req.webhook));
      return { webhook: toMessage(r.webhook), secret: r.secret };
    }),
    getWebhook: unary(logger, 'GetWebhook', async (req: pb.GetWebhookRequest) => ({ webhook: toMessage(await service.get(req.id)) })),
    updateWebhook: unary(logger, 'UpdateWebhook', async (req: pb.UpdateWebhookRequest) => ({
      webhook: toMessage(await service.replace(req.id, fromInput(req.webhook), req.expected_version)),
    })),
    patchWebhook: unary(logger, 'PatchWebhook', async (req: pb.PatchWebhookRequest) => ({
      webhook: toMessage(await service.patch(req.id, req.patch ?? {}, req.expected_version)),
    })),
    deleteWebhook: unary(logger, 'DeleteWebhook', async (req: pb.DeleteWebhookRequest) => ({
      webhook: toMessage(await service.remove(req.id, req.expected_version)),
    })),
    listWebhooks: unary(logger, 'ListWebhooks', async (req: pb.ListWebhooksRequest) => {
      const r = await service.list(fromListQuery(req.query));
      return { data: r.data.map(toMessage), page_info: { total: r.total } };
    }),
  };
  return { name: 'pim.webhooks.v1.WebhooksService', definition: pb.WebhooksServiceService, implementation };
}
