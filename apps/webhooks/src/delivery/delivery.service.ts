import type { DataSource, EntityManager } from 'typeorm';
import { ConflictError, NotFoundError, ValidationError, withLinks } from '@pim/errors';
import { buildEnvelope } from '@pim/events';
import { newId, requireId } from '@pim/ids';
import { currentContext, traceContextOf } from '@pim/logging';
import { validateListQuery, type ListQuery } from '@pim/query';
import { deliveryListDecl, TEST_EVENT_TYPE, type DeliveryAttemptView, type DeliveryView } from '@pim/resources';
import type { WebhookEntity } from '../webhook/webhook.entity';
import { FanoutRecorder } from './fanout.recorder';
import type { DeliveryAttemptEntity, DeliveryEntity } from './delivery.entity';
import {
  attemptsOf,
  findDelivery,
  listDeliveries,
  liveWebhook,
  requeueDelivery,
  requeueFailedSince,
  wakeDeliveryWorkers,
} from './deliveries.repository';

/** A delivery row as the API shows it. */
export function toDeliveryView(d: DeliveryEntity): DeliveryView {
  const v: DeliveryView = {
    _id: d._id,
    webhook_id: d.webhook_id,
    event_id: d.event_id,
    event_type: d.event_type,
    status: d.status,
    attempts: d.attempts,
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
  };
  if (d.next_attempt_at && d.status === 'pending') v.next_attempt_at = d.next_attempt_at.toISOString();
  if (d.last_attempt_at) v.last_attempt_at = d.last_attempt_at.toISOString();
  if (d.last_status_code !== null) v.last_status_code = d.last_status_code;
  if (d.last_response_body !== null) v.last_response_body = d.last_response_body;
  if (d.last_duration_ms !== null) v.last_duration_ms = d.last_duration_ms;
  if (d.last_error !== null) v.last_error = d.last_error;
  if (d.request_id !== null) v.request_id = d.request_id;
  if (d.completed_at) v.completed_at = d.completed_at.toISOString();
  return v;
}

/** An attempt row as the API shows it. */
export function toAttemptView(a: DeliveryAttemptEntity): DeliveryAttemptView {
  const v: DeliveryAttemptView = { number: a.number, started_at: a.started_at.toISOString(), outcome: a.outcome };
  if (a.duration_ms !== null) v.duration_ms = a.duration_ms;
  if (a.status_code !== null) v.status_code = a.status_code;
  if (a.response_body !== null) v.response_body = a.response_body;
  if (a.error !== null) v.error = a.error;
  if (a.url !== null) v.url = a.url;
  return v;
}

const webhookNotFound = (id: string) =>
  new NotFoundError(`No webhook with _id '${id}'`, {
    title: 'Webhook not found',
    ...withLinks((link) => `List webhooks with ${link({ collection: 'webhooks' })} to find the right _id`),
  });

const deliveryNotFound = (webhookId: string, id: string) =>
  new NotFoundError(`Webhook '${webhookId}' has no delivery with _id '${id}'`, {
    title: 'Delivery not found',
    ...withLinks(
      (link) => `List the deliveries with ${link({ collection: 'webhooks', id: webhookId, sub: 'deliveries' })}`,
    ),
  });

/** The delivery log and the actions on it: list, get, redeliver, recover, test. */
export class DeliveryService {
  private readonly recorder: FanoutRecorder;

  constructor(private readonly ds: DataSource) {
    this.recorder = new FanoutRecorder(ds);
  }

  /** A page of one webhook's deliveries (newest first unless sorted otherwise). */
  async list(webhookId: string, query: ListQuery): Promise<{ data: DeliveryView[]; total: number }> {
    requireId(webhookId, 'webhook');
    const q = validateListQuery(deliveryListDecl, query);
    await this.liveWebhook(this.ds.manager, webhookId);
    const [rows, total] = await listDeliveries(this.ds.manager, webhookId, q);
    return { data: rows.map(toDeliveryView), total };
  }

  /** One delivery with every attempt, oldest first. */
  async get(
    webhookId: string,
    deliveryId: string,
  ): Promise<{ delivery: DeliveryView; attempts: DeliveryAttemptView[] }> {
    requireId(webhookId, 'webhook');
    requireId(deliveryId, 'delivery', 'deliveryId');
    await this.liveWebhook(this.ds.manager, webhookId);
    const d = await findDelivery(this.ds.manager, { _id: deliveryId, webhook_id: webhookId });
    if (!d) throw deliveryNotFound(webhookId, deliveryId);
    const attempts = await attemptsOf(this.ds.manager, deliveryId);
    return { delivery: toDeliveryView(d), attempts: attempts.map(toAttemptView) };
  }

  /**
   * Queues a delivery again now, whatever its state, with a fresh retry schedule; refused while
   * an attempt of it is running (that attempt decides first).
   */
  async redeliver(webhookId: string, deliveryId: string): Promise<DeliveryView> {
    requireId(webhookId, 'webhook');
    requireId(deliveryId, 'delivery', 'deliveryId');
    return this.ds.transaction(async (m) => {
      await this.liveWebhook(m, webhookId);
      const d = await findDelivery(m, { _id: deliveryId, webhook_id: webhookId }, true);
      if (!d) throw deliveryNotFound(webhookId, deliveryId);
      if (d.lease_token !== null && d.lease_expires_at !== null && d.lease_expires_at.getTime() > Date.now()) {
        throw new ConflictError('This delivery is being sent right now', {
          title: 'Delivery in progress',
          solution: 'Wait for the attempt to finish (at most the webhook time-out), then redeliver',
        });
      }
      await requeueDelivery(m, deliveryId);
      await wakeDeliveryWorkers(m);
      return toDeliveryView((await findDelivery(m, { _id: deliveryId, webhook_id: webhookId }))!);
    });
  }

  /** Queues again every failed delivery of the webhook created at or after `since`; returns how many. */
  async recover(webhookId: string, since: string): Promise<number> {
    requireId(webhookId, 'webhook');
    const at = Date.parse(since);
    if (!since || Number.isNaN(at)) {
      throw new ValidationError(`'${since}' is not a date`, {
        title: 'Invalid since',
        solution: 'Give since as an ISO 8601 date, e.g. 2026-11-22T00:00:00Z',
        details: [{ field: 'since', message: 'must be an ISO 8601 date' }],
      });
    }
    return this.ds.transaction(async (m) => {
      await this.liveWebhook(m, webhookId);
      const n = await requeueFailedSince(m, webhookId, new Date(at));
      if (n > 0) await wakeDeliveryWorkers(m);
      return n;
    });
  }

  /** Queues a `webhooks.test` event for this webhook only; it is signed and logged like any delivery. */
  async sendTest(webhookId: string): Promise<DeliveryView> {
    requireId(webhookId, 'webhook');
    return this.ds.transaction(async (m) => {
      const w = await this.liveWebhook(m, webhookId);
      if (!w.url) {
        throw new ConflictError('This webhook has no url to send to', {
          title: 'No url',
          ...withLinks(
            (link) => `Set the webhook url first (${link({ method: 'PATCH', collection: 'webhooks', id: webhookId })})`,
          ),
        });
      }
      if (!w.enabled) {
        throw new ConflictError('This webhook is disabled; it sends nothing, tests included', {
          title: 'Webhook disabled',
          ...withLinks(
            (link) =>
              `Enable it first (${link({ method: 'PATCH', collection: 'webhooks', id: webhookId })} with {"enabled": true})`,
          ),
        });
      }
      const ctx = currentContext();
      const envelope = buildEnvelope({
        id: newId(),
        source: 'webhooks',
        collection: 'webhooks',
        action: 'test',
        data: {
          webhook_id: w._id,
          message: 'A test event from the PIM platform: this webhook is reachable and its signature can be checked.',
        },
        occurredAt: new Date(),
        actor: ctx?.actor ?? null,
        requestId: ctx?.requestId,
        // The test's attempt joins the trace of the request that asked for it.
        trace: traceContextOf(),
      });
      if (envelope.type !== TEST_EVENT_TYPE) throw new Error(`unexpected test event type ${envelope.type}`);
      await this.recorder.recordIn(m, [envelope], 1, w._id);
      return toDeliveryView((await findDelivery(m, { webhook_id: w._id, event_id: envelope.id }))!);
    });
  }

  private async liveWebhook(m: EntityManager, id: string): Promise<WebhookEntity> {
    const w = await liveWebhook(m, id);
    if (!w) throw webhookNotFound(id);
    return w;
  }
}
