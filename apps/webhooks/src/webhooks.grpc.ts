import { webhooks as pb } from '@pim/contracts';
import { fromProtoListQuery, unary, type ServiceRegistration } from '@pim/rpc';
import type { Logger } from '@pim/logging';
import { toMessage } from './webhook/webhook.messages';
import { WebhookService } from './webhook/webhook.service';
import type { DeliveryService } from './delivery/delivery.service';
import { deliveryHandlers } from './delivery/delivery.grpc';

export { toMessage };

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

/** gRPC handlers of pim.webhooks.v1.WebhooksService: decode, call the service, encode. */
export function webhooksGrpc(
  service: WebhookService,
  deliveries: DeliveryService,
  logger: Logger,
): ServiceRegistration {
  const implementation: pb.WebhooksServiceServer = {
    upsertWebhook: unary(logger, 'UpsertWebhook', async (req: pb.UpsertWebhookRequest) => {
      const r = await service.upsert(fromInput(req.webhook), req.expected_version);
      return { webhook: toMessage(r.webhook), created: r.created, secret: r.secret };
    }),
    createWebhook: unary(logger, 'CreateWebhook', async (req: pb.CreateWebhookRequest) => {
      const r = await service.create(fromInput(req.webhook));
      return { webhook: toMessage(r.webhook), secret: r.secret };
    }),
    getWebhook: unary(logger, 'GetWebhook', async (req: pb.GetWebhookRequest) => ({
      webhook: toMessage(await service.get(req.id)),
    })),
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
      const r = await service.list(fromProtoListQuery(req.query));
      return { data: r.data.map(toMessage), page_info: { total: r.total } };
    }),
    ...deliveryHandlers(deliveries, service, logger),
  };
  return { name: 'pim.webhooks.v1.WebhooksService', definition: pb.WebhooksServiceService, implementation };
}
