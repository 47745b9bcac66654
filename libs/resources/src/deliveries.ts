import { z } from 'zod';
import { declareResource } from '@pim/query';
import { COLLECTIONS, eventTypes, type CollectionInfo } from './collections';
import { dateTimeSchema, objectIdSchema } from './common';
import { webhookSchema } from './webhooks';

/** States of a delivery: waiting for an attempt, done, given up, or dropped with its webhook. */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;

/** A delivery's state. */
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** How one HTTP attempt ended. */
export const ATTEMPT_OUTCOMES = [
  'success',
  'http_error',
  'rate_limited',
  'gone',
  'timeout',
  'network_error',
  'blocked',
  'interrupted',
] as const;

/** How one HTTP attempt ended. */
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/** The event type of the signed test event `POST /webhooks/{id}/test` sends. */
export const TEST_EVENT_TYPE = 'webhooks.test';

const INT32_MAX = 2_147_483_647;
// Postgres text cannot hold NUL (a string, so the lint rule on control characters in regex literals does not apply).
const NO_NUL = '^[^\\u0000]*$';
const int32 = (min: number, description: string, example: number) =>
  z.number().int().min(min).max(INT32_MAX).meta({ format: 'int32', description, example });
// Free text from a receiver or an error: anything but NUL (Postgres text cannot hold it; it is stripped).
const text = (max: number, description: string, example: string) =>
  z.string().regex(new RegExp(NO_NUL)).max(max).meta({ description, example });

/** One delivery (an event to one webhook) as the delivery log shows it. */
export const deliverySchema = z
  .strictObject({
    _id: objectIdSchema,
    webhook_id: objectIdSchema,
    event_id: objectIdSchema.meta({ description: 'The event id; sent as `webhook-id` on every attempt' }),
    event_type: z
      .string()
      .regex(/^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/)
      .max(130)
      .meta({ example: 'products.updated' }),
    status: z.enum(DELIVERY_STATUSES).meta({
      description:
        'pending (waiting for its next attempt), succeeded, failed (retries exhausted, 410 Gone) or cancelled (its webhook was deleted)',
    }),
    attempts: int32(0, 'Attempts made so far', 1),
    next_attempt_at: dateTimeSchema.optional().meta({ description: 'When the next attempt is due (pending only)' }),
    last_attempt_at: dateTimeSchema.optional(),
    last_status_code: int32(100, 'HTTP status of the last attempt, if the receiver answered', 200).max(599).optional(),
    last_response_body: text(4096, 'The start of the receiver’s last answer (truncated)', 'ok').optional(),
    last_duration_ms: int32(0, 'Duration of the last attempt in milliseconds', 42).optional(),
    last_error: text(2000, 'Why the last attempt failed, when it did', 'receiver answered 500').optional(),
    request_id: text(
      200,
      'Request id of the API call that caused the event',
      '0b6f1d2e-5a43-4c1b-9d7e-3f2a1c0b9e8d',
    ).optional(),
    created_at: dateTimeSchema,
    updated_at: dateTimeSchema,
    completed_at: dateTimeSchema.optional(),
  })
  .meta({ id: 'Delivery', description: 'One event to one webhook: its state and its last attempt' });

/** One HTTP attempt of a delivery. */
export const deliveryAttemptSchema = z
  .strictObject({
    number: int32(1, 'Attempt number, from 1', 1),
    started_at: dateTimeSchema,
    duration_ms: int32(0, 'Duration in milliseconds', 42).optional(),
    outcome: z.enum(ATTEMPT_OUTCOMES),
    status_code: int32(100, 'HTTP status, if the receiver answered', 200).max(599).optional(),
    response_body: text(4096, 'The start of the answer (truncated)', 'ok').optional(),
    error: text(2000, 'Why the attempt failed, when it did', 'receiver answered 500').optional(),
    url: z
      .string()
      .max(2048)
      .optional()
      .meta({ format: 'uri', description: 'Where it was sent', example: 'https://example.com/hooks/pim' }),
  })
  .meta({
    id: 'DeliveryAttempt',
    description: 'One attempt of a delivery: when, the answer or the error, and how long it took',
  });

/** A delivery with every attempt, oldest first (`GET /webhooks/{id}/deliveries/{deliveryId}`). */
export const deliveryDetailSchema = deliverySchema
  .extend({
    attempt_log: z.array(deliveryAttemptSchema).max(1000).meta({ description: 'Every attempt, oldest first' }),
  })
  .meta({ id: 'DeliveryDetail', description: 'A delivery with every attempt, oldest first' });

/** A delivery as the API shows it. */
export type DeliveryView = z.infer<typeof deliverySchema>;
/** One attempt as the API shows it. */
export type DeliveryAttemptView = z.infer<typeof deliveryAttemptSchema>;

/** Fields of the delivery log: what can be filtered and sorted. */
export const deliveryListDecl = declareResource({
  collection: 'deliveries',
  fields: {
    _id: { type: 'id' },
    event_id: { type: 'id' },
    event_type: { type: 'string', searchable: true },
    status: { type: 'string' },
    attempts: { type: 'number' },
    next_attempt_at: { type: 'date' },
    last_attempt_at: { type: 'date' },
    last_status_code: { type: 'number' },
    request_id: { type: 'string' },
    created_at: { type: 'date' },
    updated_at: { type: 'date' },
    completed_at: { type: 'date' },
  },
});

/** The `data` of a `webhooks.test` event. */
export const testEventDataSchema = z
  .strictObject({
    webhook_id: objectIdSchema,
    message: z.string().max(200),
  })
  .meta({ id: 'TestEventData' });

/** One entry of the event catalog. */
export interface EventTypeInfo {
  /** `<collection>.<action>`. */
  type: string;
  collection: string;
  action: string;
  /** The app that publishes it. */
  app: CollectionInfo['app'];
  description: string;
  /** JSON Schema (2020-12) of the event's `data`. */
  schema: Record<string, unknown>;
}

// The resource schemas that exist so far; a collection joins here when its app publishes one.
const RESOURCE_SCHEMAS: Record<string, z.ZodType> = { webhooks: webhookSchema };

const toJsonSchema = (schema: z.ZodType): Record<string, unknown> =>
  z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>;

// Every record has these (docs/platform/rules.md: records); the rest of a not-yet-described resource is open.
const genericRecordSchema = z
  .looseObject({
    _id: objectIdSchema,
    version: z.number().int(),
    created_at: dateTimeSchema,
    updated_at: dateTimeSchema,
  })
  .meta({
    description: 'The record as the REST API shows it; its full schema is in the OpenAPI document of its resource',
  });

/** What a `deleted` event's data holds besides the record's last state. */
const deletedFields = {
  deleted_at: dateTimeSchema.nullable().meta({ description: 'When it was deleted' }),
  deleted_by: z.string().max(200).nullable().meta({ description: 'Who deleted it (the user name of the request)' }),
};

const ACTION_TEXT: Record<string, string> = {
  created: 'was created (data: the new record)',
  updated: 'was changed (data: the record after the change)',
  deleted: 'was deleted (data: its last state, with deleted_at and deleted_by)',
  status_changed: 'changed status (data: the record after the change)',
  approved: 'was approved (data: the record after the change)',
  rejected: 'was rejected (data: the record after the change)',
  completed: 'completed (data: the job with its counts)',
  failed: 'failed (data: the job with its errors)',
};

/** Every event type the platform publishes, each with a JSON schema of its `data` (GET /api/v1/event-types). */
export function eventCatalog(): EventTypeInfo[] {
  const out: EventTypeInfo[] = [];
  for (const c of COLLECTIONS) {
    const record = RESOURCE_SCHEMAS[c.name] ?? genericRecordSchema;
    const schema = toJsonSchema(record);
    const deleted = toJsonSchema(record instanceof z.ZodObject ? record.extend(deletedFields) : record);
    for (const type of eventTypes(c)) {
      const action = type.slice(c.name.length + 1);
      out.push({
        type,
        collection: c.name,
        action,
        app: c.app,
        description: `A record of ${c.name} ${ACTION_TEXT[action] ?? action}`,
        schema: action === 'deleted' ? deleted : schema,
      });
    }
  }
  out.push({
    type: TEST_EVENT_TYPE,
    collection: 'webhooks',
    action: 'test',
    app: 'webhooks',
    description:
      'Sent to one webhook by POST /api/v1/webhooks/{id}/test, to check the receiver and its signature verification',
    schema: toJsonSchema(testEventDataSchema),
  });
  return out;
}
