import type { webhooks as pb } from '@pim/contracts';
import { fromProtoListQuery, unary } from '@pim/rpc';
import type { Logger } from '@pim/logging';
import type { DeliveryAttemptView, DeliveryView } from '@pim/resources';
import type { WebhookService } from '../webhook/webhook.service';
import { toMessage } from '../webhook/webhook.messages';
import type { DeliveryService } from './delivery.service';

/** View → proto message (`_id` travels as `id`). */
export function toDeliveryMessage(v: DeliveryView): pb.Delivery {
  return {
    id: v._id,
    webhook_id: v.webhook_id,
    event_id: v.event_id,
    event_type: v.event_type,
    status: v.status,
    attempts: v.attempts,
    next_attempt_at: v.next_attempt_at,
    last_attempt_at: v.last_attempt_at,
    last_status_code: v.last_status_code,
    last_response_body: v.last_response_body,
    last_duration_ms: v.last_duration_ms,
    last_error: v.last_error,
    request_id: v.request_id,
    created_at: v.created_at,
    updated_at: v.updated_at,
    completed_at: v.completed_at,
  };
}

/** Attempt view → proto message. */
export function toAttemptMessage(a: DeliveryAttemptView): pb.DeliveryAttempt {
  return { ...a };
}

type DeliveryHandlers = Pick<
  pb.WebhooksServiceServer,
  'listDeliveries' | 'getDelivery' | 'redeliverDelivery' | 'recoverDeliveries' | 'sendTestEvent' | 'rotateSecret'
>;

/** gRPC handlers of the delivery log and its actions (part of pim.webhooks.v1.WebhooksService). */
export function deliveryHandlers(
  deliveries: DeliveryService,
  webhooks: WebhookService,
  logger: Logger,
): DeliveryHandlers {
  return {
    listDeliveries: unary(logger, 'ListDeliveries', async (req: pb.ListDeliveriesRequest) => {
      const r = await deliveries.list(req.webhook_id, fromProtoListQuery(req.query));
      return { data: r.data.map(toDeliveryMessage), page_info: { total: r.total } };
    }),
    getDelivery: unary(logger, 'GetDelivery', async (req: pb.GetDeliveryRequest) => {
      const r = await deliveries.get(req.webhook_id, req.delivery_id);
      return { delivery: toDeliveryMessage(r.delivery), attempts: r.attempts.map(toAttemptMessage) };
    }),
    redeliverDelivery: unary(logger, 'RedeliverDelivery', async (req: pb.RedeliverDeliveryRequest) => ({
      delivery: toDeliveryMessage(await deliveries.redeliver(req.webhook_id, req.delivery_id)),
    })),
    recoverDeliveries: unary(logger, 'RecoverDeliveries', async (req: pb.RecoverDeliveriesRequest) => ({
      recovered: await deliveries.recover(req.webhook_id, req.since),
    })),
    sendTestEvent: unary(logger, 'SendTestEvent', async (req: pb.SendTestEventRequest) => ({
      delivery: toDeliveryMessage(await deliveries.sendTest(req.webhook_id)),
    })),
    rotateSecret: unary(logger, 'RotateSecret', async (req: pb.RotateSecretRequest) => {
      const r = await webhooks.rotateSecret(req.webhook_id, req.expected_version);
      return {
        webhook: toMessage(r.webhook),
        secret: r.secret,
        previous_secret_expires_at: r.previousSecretExpiresAt.toISOString(),
      };
    }),
  };
}
