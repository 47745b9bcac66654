import { z } from 'zod';
import { declareResource } from '@pim/query';
import { COLLECTIONS, type CollectionInfo } from './collections';
import { dateTimeSchema, objectIdSchema } from './common';

/** An app whose dead letters `/dead-letters` shows. */
export type DeadLetterApp = CollectionInfo['app'];

/** The apps whose dead letters `/dead-letters` shows: every app that owns records (each has an outbox). */
export const DEAD_LETTER_APPS = [...new Set(COLLECTIONS.map((c) => c.app))] as [DeadLetterApp, ...DeadLetterApp[]];

/** What a re-drive did with the event. */
export const REDRIVE_OUTCOMES = ['queued', 'handled'] as const;

const INT32_MAX = 2_147_483_647;
// Postgres text cannot hold NUL (a string, so the lint rule on control characters in regex literals does not apply).
const NO_NUL = '^[^\\u0000]*$';
const SOURCE = /^[a-z][a-z0-9-]*$/;

const fields = {
  _id: objectIdSchema.meta({ description: 'The dead letter’s own id (use it to re-drive or discard it)' }),
  app: z.enum(DEAD_LETTER_APPS).meta({ description: 'The app that holds it' }),
  source: z.string().regex(SOURCE).max(64).meta({
    description:
      'Where it got stuck: `outbox` (the app could not publish the event to the event stream) or the name of the app’s consumer that could not handle it (`fan-out`: turning events into webhook deliveries; `auto-republish`: publishing changed products again)',
    example: 'outbox',
  }),
  event_id: objectIdSchema.meta({ description: 'The event’s id (the `webhook-id` its deliveries carry)' }),
  event_type: z
    .string()
    .regex(/^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/)
    .max(130)
    .meta({ example: 'products.updated' }),
};

/** One dead letter as `GET /dead-letters` shows it. */
export const deadLetterSchema = z
  .strictObject({
    ...fields,
    record_id: objectIdSchema
      .optional()
      .meta({ description: 'The `_id` of the record the event is about, when it is about one' }),
    occurred_at: dateTimeSchema.meta({ description: 'When the change that made the event happened' }),
    attempts: z.number().int().min(0).max(INT32_MAX).meta({
      format: 'int32',
      description: 'Tries that failed: publishes (outbox) or deliveries to the consumer',
      example: 10,
    }),
    last_error: z.string().regex(new RegExp(NO_NUL)).max(2000).meta({
      description: 'Why the last try failed',
      example: "InvalidArgumentError: 'payload' max_payload size exceeded",
    }),
    size_bytes: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).meta({
      format: 'int64',
      description:
        'Size of the event in bytes (an event larger than the event stream takes — 1 MiB by default — can never be published)',
      example: 1_200_000,
    }),
    created_at: dateTimeSchema.meta({ description: 'When it was set aside' }),
    updated_at: dateTimeSchema.meta({ description: 'When it last changed (a re-drive that failed again)' }),
  })
  .meta({
    id: 'DeadLetter',
    description:
      'An event set aside after every try failed, so that the events after it keep flowing. Nothing is delivered for it until it is re-driven',
  });

/** A dead letter as the API shows it. */
export type DeadLetterView = z.infer<typeof deadLetterSchema>;

/** What `POST /dead-letters/{id}/redrive` answers. */
export const deadLetterRedriveSchema = z
  .strictObject({
    ...fields,
    outcome: z.enum(REDRIVE_OUTCOMES).meta({
      description:
        '`queued`: the event is back in its app’s outbox and is published in a moment, before the later events of its record that waited behind it; `handled`: its consumer handled it now',
    }),
  })
  .meta({ id: 'DeadLetterRedrive', description: 'The re-driven dead letter, which no longer exists' });

/** What a re-drive answers, as the API shows it. */
export type DeadLetterRedriveView = z.infer<typeof deadLetterRedriveSchema>;

/**
 * Fields of the dead letter list: what can be filtered and sorted. `app` is the gateway's (it picks
 * the apps it asks); the rest is each app's. Sorts are on fields every app orders the same way, so
 * the gateway can merge the apps' pages.
 */
export const deadLetterListDecl = declareResource({
  collection: 'dead_letters',
  fields: {
    _id: { type: 'id', column: 'id' },
    app: { type: 'string', sortable: false },
    source: { type: 'string', sortable: false },
    event_id: { type: 'id', sortable: false },
    event_type: { type: 'string', sortable: false },
    record_id: { type: 'id', sortable: false },
    attempts: { type: 'number' },
    occurred_at: { type: 'date' },
    created_at: { type: 'date' },
    updated_at: { type: 'date' },
  },
});
