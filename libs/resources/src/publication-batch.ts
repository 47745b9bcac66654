import { z } from 'zod';
import { dateTimeSchema, objectIdSchema } from './common';
import { field } from './declare/field';
import { defineResource } from './declare/resource';
import { productFiltersSchema } from './product-filters';

// Publication batches: one channel and a set of product filters; the publisher creates a
// publication of every matching product (POST /publications/bulk), page by page in the background.

/** Where a batch stands. */
export const PUBLICATION_BATCH_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;
/** A batch's state. */
export type PublicationBatchStatus = (typeof PUBLICATION_BATCH_STATUSES)[number];
/** Most refusals a batch lists (its count goes on). */
export const MAX_REFUSALS = 1_000;

const INT32_MAX = 2_147_483_647;
const count = (description: string) =>
  field.computed('number', z.number().int().min(0).max(INT32_MAX).meta({ format: 'int32', description })).default(0);

const refusalSchema = z
  .strictObject({
    product_id: objectIdSchema,
    code: z.string().max(100).meta({ example: 'SKU-1001' }),
    message: z.string().max(2_000).meta({ description: 'What keeps the product from the channel' }),
  })
  .meta({ id: 'PublicationBatchRefusal', description: 'A product the batch did not publish, and why' });

/**
 * Publication batches, declared once: the channel and the product filters a caller gives; the
 * publisher fills the counts, the refusals (products not ready for the channel) and the state.
 */
export const PublicationBatch = defineResource({
  collection: 'publication_batches',
  description: 'Publication batch: every product a set of filters selects, published to one channel',
  inputDescription: 'What to publish: a channel and the products, as filters of the product list',
  fields: {
    channel_id: field
      .of('id', {
        input: objectIdSchema.meta({ description: 'The enabled channel to publish to' }),
        view: objectIdSchema,
      })
      .required()
      .expands('channel', 'channels'),
    filters: field
      .of('object', {
        input: productFiltersSchema(
          'Which products: filters as GET /products takes them (brand_id, categories, enabled, _search, attributes.<key>, _id_in…); empty: every live product. A filter naming an attribute hidden from your user (an attribute group lists you among its not_allowed_users) is refused with 403',
        ),
      })
      .default({})
      .listed(false),
    status: field
      .computed(
        'string',
        z.enum(PUBLICATION_BATCH_STATUSES).meta({
          description:
            'pending → processing → completed, or failed (the channel is gone or disabled, the filters no longer hold)',
        }),
      )
      .shown(),
    products_count: count('Products the filters matched when the batch began'),
    publications_count: count('Publications created (each then goes its own way: GET /publications?batch_id=…)'),
    refused_count: count('Products not published: not ready for the channel'),
    refusals: field
      .computed(
        'array',
        z
          .array(refusalSchema)
          .max(MAX_REFUSALS)
          .meta({ description: `The first ${MAX_REFUSALS} refused products, and why` }),
      )
      .default([])
      .listed(false),
    error: field.computed('string', z.string().max(2_000).meta({ description: 'Why a failed batch stopped' })),
    started_at: field.computed('date', dateTimeSchema.meta({ description: 'When the publisher began' })),
    finished_at: field.computed('date', dateTimeSchema.meta({ description: 'When it completed or failed' })),
  },
});

/** A publication batch as the API shows it. */
export type PublicationBatchView = z.infer<typeof PublicationBatch.schemas.view>;
/** The writable fields of a publication batch. */
export type PublicationBatchInput = z.infer<typeof PublicationBatch.schemas.input>;
/** A refused product of a batch. */
export type PublicationBatchRefusal = z.infer<typeof refusalSchema>;
