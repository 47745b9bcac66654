import { z } from 'zod';
import { dateTimeSchema, objectIdSchema } from './common';
import { field } from './declare/field';
import { defineResource } from './declare/resource';

// Publications: one product sent to one channel. Created ready with the product as it is then (the
// snapshot), sent by the publisher, ended published or failed. A publication is never edited: a
// product changed since is published again by a new publication.

/** Where a publication stands. */
export const PUBLICATION_STATUSES = ['ready_to_publish', 'publishing', 'published', 'failed'] as const;
/** A publication's state. */
export type PublicationStatus = (typeof PUBLICATION_STATUSES)[number];
/** The statuses of a tracking entry. */
export const TRACKING_STATUSES = ['PENDING', 'IN_PROGRESS', 'PUBLISHED', 'FAILED'] as const;
/** A tracking entry's status. */
export type TrackingStatus = (typeof TRACKING_STATUSES)[number];
/** What made a publication. */
export const PUBLICATION_ORIGINS = ['api', 'bulk', 'auto_republish'] as const;
/** What made a publication. */
export type PublicationOrigin = (typeof PUBLICATION_ORIGINS)[number];

const INT32_MAX = 2_147_483_647;
/** Most tracking entries a publication keeps (the oldest retries are dropped first, never the first entry). */
export const MAX_TRACKING = 100;

/** One step of a publication's life. */
export const trackingEntrySchema = z
  .strictObject({
    status: z.enum(TRACKING_STATUSES),
    message: z.string().max(2_000).meta({ example: 'The channel answered 201' }),
    created_at: dateTimeSchema,
    data: z
      .array(z.string().max(2_000))
      .max(20)
      .meta({ description: 'Details: the attempt, the HTTP status, the URL the channel gave', example: ['attempt=1'] }),
  })
  .meta({
    id: 'PublicationTracking',
    description: 'One step of the publication: PENDING, IN_PROGRESS, PUBLISHED or FAILED',
  });

/** A tracking entry. */
export type TrackingEntry = z.infer<typeof trackingEntrySchema>;

/**
 * Publications, declared once. A caller names the product and the channel; the publisher fills
 * the rest: the advertisement (the product's listing on that channel, shared by every publication
 * of the pair), the snapshot, the payload sent, the URL the channel gave and the tracking.
 */
export const Publication = defineResource({
  collection: 'publications',
  description: 'Publication: one product sent to one channel',
  inputDescription: 'What to publish: a product and a channel',
  fields: {
    product_id: field
      .of('id', {
        input: objectIdSchema.meta({ description: 'The live product to publish' }),
        view: objectIdSchema,
      })
      .required()
      .expands('product', 'products'),
    channel_id: field
      .of('id', {
        input: objectIdSchema.meta({ description: 'The enabled channel to publish it to' }),
        view: objectIdSchema,
      })
      .required()
      .expands('channel', 'channels'),
    advertisement_id: field
      .computed(
        'id',
        objectIdSchema.meta({
          description:
            "The product's listing on the channel: every publication of the same product and channel shares it",
        }),
      )
      .shown(),
    status: field
      .computed(
        'string',
        z.enum(PUBLICATION_STATUSES).meta({
          description:
            'ready_to_publish → publishing → published or failed; retry puts a failed publication back to ready_to_publish',
        }),
      )
      .shown(),
    origin: field
      .computed(
        'string',
        z.enum(PUBLICATION_ORIGINS).meta({
          description:
            'api: created by a caller; bulk: by a bulk publication; auto_republish: by a change of a published product',
        }),
      )
      .shown(),
    batch_id: field.computed(
      'id',
      objectIdSchema.meta({ description: 'The publication batch that made it (origin bulk)' }),
    ),
    publishment_url: field.computed(
      'string',
      z.string().max(2_048).meta({ description: "Where the channel shows the product, from the channel's answer" }),
    ),
    tracking: field
      .computed(
        'array',
        z.array(trackingEntrySchema).max(MAX_TRACKING).meta({ description: 'What happened, oldest first' }),
      )
      .default([]),
    product_snapshot: field
      .computed(
        'object',
        z
          .record(z.string().max(100), z.unknown())
          .meta({ description: 'The product as the API showed it when the publication was created' }),
      )
      .shown()
      .listed(false),
    published_payload: field
      .computed(
        'object',
        z
          .record(z.string().max(200), z.unknown())
          .meta({ description: 'The payload sent to the channel (its mapping applied to the snapshot)' }),
      )
      .listed(false),
    attempts: field
      .computed(
        'number',
        z
          .number()
          .int()
          .min(0)
          .max(INT32_MAX)
          .meta({ format: 'int32', description: 'Requests made to the channel so far' }),
      )
      .default(0),
    next_attempt_at: field.computed(
      'date',
      dateTimeSchema.meta({
        description: 'When the next request is due, while the publisher retries after a timeout or a 5xx',
      }),
    ),
  },
});

/** A publication as the API shows it. */
export type PublicationView = z.infer<typeof Publication.schemas.view>;
/** The writable fields of a publication. */
export type PublicationInput = z.infer<typeof Publication.schemas.input>;
