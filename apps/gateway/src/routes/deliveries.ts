import { z } from 'zod';
import type { webhooks as pb } from '@pim/contracts';
import { requireId } from '@pim/ids';
import { buildEnvelope, declareResource, parseListQuery } from '@pim/query';
import {
  deliveryDetailSchema,
  deliveryListDecl,
  deliverySchema,
  eventCatalog,
  webhookWithSecretSchema,
  type DeliveryAttemptView,
  type DeliveryView,
} from '@pim/resources';
import type { Api } from '../http/route';
import { fixedListRoute } from '../http/fixed-list';
import { etag, etagHeaders, expectedVersion, ifMatchHeader, locationHeaders } from '../http/conditional';
import { toProtoListQuery } from '@pim/rpc';
import { listQueryDoc } from '../http/list';
import { envelopeSchema } from '../openapi/envelope';
import { fromMessage, type WebhooksClient } from './webhooks';

/** Proto delivery → the API's delivery (`id` is `_id` in REST; absent optionals stay absent). */
export function fromDeliveryMessage(m: pb.Delivery | undefined): DeliveryView {
  if (!m) throw new Error('webhooks answered without a delivery');
  const v: DeliveryView = {
    _id: m.id,
    webhook_id: m.webhook_id,
    event_id: m.event_id,
    event_type: m.event_type,
    status: m.status as DeliveryView['status'],
    attempts: m.attempts,
    created_at: m.created_at,
    updated_at: m.updated_at,
  };
  const optional = [
    'next_attempt_at',
    'last_attempt_at',
    'last_status_code',
    'last_response_body',
    'last_duration_ms',
    'last_error',
    'request_id',
    'completed_at',
  ] as const;
  for (const k of optional) if (m[k] !== undefined) (v as Record<string, unknown>)[k] = m[k];
  return v;
}

/** Proto attempt → the API's attempt. */
export function fromAttemptMessage(a: pb.DeliveryAttempt): DeliveryAttemptView {
  const v: DeliveryAttemptView = {
    number: a.number,
    started_at: a.started_at,
    outcome: a.outcome as DeliveryAttemptView['outcome'],
  };
  const optional = ['duration_ms', 'status_code', 'response_body', 'error', 'url'] as const;
  for (const k of optional) if (a[k] !== undefined) (v as Record<string, unknown>)[k] = a[k];
  return v;
}

const TAGS = ['Webhooks'];
// Postgres text cannot hold NUL (a string, so the lint rule on control characters in regex literals does not apply).
const NO_NUL = '^[^\\u0000]*$';
const webhookId = (id: string) => requireId(id, 'webhook', 'id');
const deliveryId = (id: string) => requireId(id, 'delivery', 'deliveryId');

const recoverQuery = z.object({
  since: z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be one ISO 8601 date') })
    .regex(
      /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)?)?$/,
      'must be an ISO 8601 date, e.g. 2026-11-22T00:00:00Z',
    )
    .max(35)
    .meta({
      description: 'Failed deliveries created at or after this date are queued again',
      example: '2026-11-22T00:00:00Z',
    }),
});

const recoveredSchema = z
  .strictObject({
    recovered: z
      .number()
      .int()
      .min(0)
      .max(2_147_483_647)
      .meta({ format: 'int32', description: 'Deliveries queued again', example: 12 }),
  })
  .meta({ id: 'RecoverResult', description: 'How many failed deliveries were queued again' });

const rotatedSchema = webhookWithSecretSchema
  .extend({
    previous_secret_expires_at: z.iso.datetime().meta({
      description:
        'Until then every delivery also carries a signature made with the previous secret, so receivers can switch without losing events',
      example: '2026-11-23T16:15:43.123Z',
      maxLength: 24,
    }),
  })
  .meta({ id: 'RotatedSecret', description: 'The webhook with its new signing secret, shown only in this response' });

const NAME = /^[a-z][a-z0-9_]*$/;
const eventTypeSchema = z
  .strictObject({
    type: z
      .string()
      .regex(/^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/)
      .max(130)
      .meta({ example: 'products.updated' }),
    collection: z.string().regex(NAME).max(64).meta({ example: 'products' }),
    action: z.string().regex(NAME).max(64).meta({ example: 'updated' }),
    app: z
      .string()
      .regex(/^[a-z][a-z0-9-]*$/)
      .max(32)
      .meta({ example: 'catalog' }),
    description: z
      .string()
      .regex(new RegExp(NO_NUL))
      .max(500)
      .meta({ example: 'A record of products was changed (data: the record after the change)' }),
    schema: z
      .record(
        z
          .string()
          .regex(/^[$A-Za-z_][A-Za-z0-9_]*$/)
          .max(64),
        z.unknown(),
      )
      .meta({ description: 'JSON Schema (draft 2020-12) of the event `data`', example: { type: 'object' } }),
  })
  .meta({
    id: 'EventType',
    description:
      'A kind of event the platform emits: its type (collection and action), the app that emits it, what it means and the schema of its data',
  });

/** The fields the event catalog is filtered, sorted and searched on. */
const eventTypeListDecl = declareResource({
  collection: 'event_types',
  defaultSort: 'type',
  fields: {
    // Items held here have no record id: it is declared, as every list declares it, but never filtered or sorted.
    _id: { type: 'id', filterable: false, sortable: false },
    type: { type: 'string', sortable: true, searchable: true },
    collection: { type: 'string', sortable: true },
    action: { type: 'string', sortable: true },
    app: { type: 'string', sortable: true },
  },
});

/** Declares the delivery log, its actions, secret rotation and the event catalog. */
export function deliveryRoutes(
  api: Api,
  client: WebhooksClient,
  limits: { maxLimit: number; defaultLimit: number },
): void {
  const deliveryListSchema = envelopeSchema('DeliveryList', deliverySchema, limits.maxLimit);

  api.route({
    method: 'get',
    path: '/webhooks/:id/deliveries',
    operationId: 'listWebhookDeliveries',
    scope: 'webhooks:read',
    summary: 'List the deliveries of a webhook',
    description:
      'The delivery log: one record per event sent to this webhook, with its status (`pending`, `succeeded`, `failed`, `cancelled`), attempts, next attempt and the outcome of the last attempt (status code, truncated answer, duration). Pagination, sorting and filters as in every list; newest first by default.',
    tags: TAGS,
    listQuery: listQueryDoc('Delivery', 'deliveries', deliveryListDecl, limits.maxLimit),
    responses: { 200: { description: 'A page of deliveries', schema: deliveryListSchema } },
    handler: async ({ params, query, path, origin }) => {
      const id = webhookId(params.id);
      const q = parseListQuery(deliveryListDecl, query, {
        maxLimit: limits.maxLimit,
        defaultLimit: limits.defaultLimit,
      });
      const r = await client.listDeliveries({ webhook_id: id, query: toProtoListQuery(q) });
      const data = r.data.map(fromDeliveryMessage);
      return {
        status: 200,
        body: buildEnvelope({
          query: q,
          total: r.page_info?.total ?? 0,
          data,
          path: `${origin}${path}`,
          raw: query,
          decl: deliveryListDecl,
        }),
      };
    },
  });

  api.route({
    method: 'get',
    path: '/webhooks/:id/deliveries/:deliveryId',
    operationId: 'getWebhookDelivery',
    scope: 'webhooks:read',
    summary: 'Get a delivery with every attempt',
    tags: TAGS,
    responses: { 200: { description: 'The delivery and its attempts, oldest first', schema: deliveryDetailSchema } },
    handler: async ({ params }) => {
      const r = await client.getDelivery({
        webhook_id: webhookId(params.id),
        delivery_id: deliveryId(params.deliveryId),
      });
      return {
        status: 200,
        body: { ...fromDeliveryMessage(r.delivery), attempt_log: r.attempts.map(fromAttemptMessage) },
      };
    },
  });

  api.route({
    method: 'post',
    path: '/webhooks/:id/deliveries/:deliveryId/redeliver',
    operationId: 'redeliverWebhookDelivery',
    scope: 'webhooks:write',
    summary: 'Send a delivery again',
    description:
      'Queues the delivery for an attempt now, whatever its state, with a fresh retry schedule; the receiver gets the same `webhook-id`. Refused with 409 while an attempt of it is in flight.',
    tags: TAGS,
    errors: [409],
    responses: { 202: { description: 'The delivery, queued', schema: deliverySchema } },
    handler: async ({ params }) => {
      const r = await client.redeliverDelivery({
        webhook_id: webhookId(params.id),
        delivery_id: deliveryId(params.deliveryId),
      });
      return { status: 202, body: fromDeliveryMessage(r.delivery) };
    },
  });

  api.route({
    method: 'post',
    path: '/webhooks/:id/recover',
    operationId: 'recoverWebhookDeliveries',
    scope: 'webhooks:write',
    summary: 'Send again every failed delivery since a date',
    description:
      'Queues again, with a fresh retry schedule, every `failed` delivery of this webhook created at or after `since`.',
    tags: TAGS,
    query: recoverQuery,
    responses: { 202: { description: 'How many deliveries were queued again', schema: recoveredSchema } },
    handler: async ({ params, query }) => {
      const id = webhookId(params.id);
      // Checked by the route against recoverQuery before the handler runs.
      const r = await client.recoverDeliveries({ webhook_id: id, since: query.since as string });
      return { status: 202, body: { recovered: r.recovered } };
    },
  });

  api.route({
    method: 'post',
    path: '/webhooks/:id/test',
    operationId: 'testWebhook',
    scope: 'webhooks:write',
    summary: 'Send a signed test event',
    description:
      'Queues a `webhooks.test` event for this webhook only, signed like every delivery; follow it in the delivery log. Refused with 409 when the webhook has no url or is disabled.',
    tags: TAGS,
    errors: [409],
    responses: { 202: { description: 'The test delivery, queued', schema: deliverySchema, headers: locationHeaders } },
    handler: async ({ params, path }) => {
      const r = await client.sendTestEvent({ webhook_id: webhookId(params.id) });
      const delivery = fromDeliveryMessage(r.delivery);
      return {
        status: 202,
        body: delivery,
        headers: { Location: `${path.replace(/\/test$/, '')}/deliveries/${delivery._id}` },
      };
    },
  });

  api.route({
    method: 'post',
    path: '/webhooks/:id/rotate-secret',
    operationId: 'rotateWebhookSecret',
    scope: 'webhooks:write',
    summary: 'Rotate the signing secret',
    description:
      'Creates a new signing secret, returned only here. During the overlap window (24 h by default) deliveries carry two signatures, one per secret, so a receiver can switch secrets without rejecting events.',
    tags: TAGS,
    requestHeaders: ifMatchHeader,
    errors: [412],
    responses: { 200: { description: 'The webhook with its new secret', schema: rotatedSchema, headers: etagHeaders } },
    handler: async ({ params, headers }) => {
      const r = await client.rotateSecret({
        webhook_id: webhookId(params.id),
        expected_version: expectedVersion(headers['if-match'] as string | undefined),
      });
      const webhook = fromMessage(r.webhook);
      return {
        status: 200,
        body: { ...webhook, secret: r.secret, previous_secret_expires_at: r.previous_secret_expires_at },
        headers: { ETag: etag(webhook.version) },
      };
    },
  });

  fixedListRoute(
    api,
    {
      path: '/event-types',
      operationId: 'listEventTypes',
      scope: 'authenticated',
      summary: 'List every event type with the schema of its data',
      description:
        'The event catalog: every `type` a webhook can receive, with a JSON Schema of the `data` member of its payload. A delivery body is `{ "type", "timestamp", "schema_version", "data", ...webhook.body }` (`schema_version`: the version of the event shape, 1; a `*.deleted` event’s data also holds `deleted_at` and `deleted_by`). In the list envelope, with pagination, sort and filters on `type`, `collection`, `action` and `app`, and `_search` over the type.',
      tags: TAGS,
      decl: eventTypeListDecl,
      item: eventTypeSchema,
      listId: 'EventTypeList',
      items: eventCatalog(),
    },
    limits,
  );
}
