import { z } from 'zod';
import { declareResource } from '@pim/query';
import { collectionNames, isCollection } from './collections';
import { dateTimeSchema, keyValueSchema, objectIdSchema } from './common';

const MAX_PAIRS = 50;

/** RFC 9110 token: what an HTTP header name may contain. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** An absolute http(s) URL. */
export const webhookUrlSchema = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.length > 0;
    } catch {
      return false;
    }
  }, 'must be an absolute http:// or https:// URL')
  .meta({
    description: 'Absolute http(s) URL that receives the events',
    example: 'https://example.com/hooks/pim',
    format: 'uri',
  });

const collectionSchema = z
  .string()
  .min(1)
  .max(64)
  .refine(isCollection, { message: `must be one of: ${collectionNames().join(', ')}` })
  .meta({
    description: 'The collection whose events this webhook receives (see GET /api/v1/collections)',
    example: 'products',
    enum: collectionNames(),
  });

const headersSchema = z
  .array(
    keyValueSchema.refine((kv) => HEADER_NAME.test(kv.key), {
      message: 'key must be a valid HTTP header name',
      path: ['key'],
    }),
  )
  .max(MAX_PAIRS)
  .meta({ description: 'Headers sent with every delivery' });

const bodySchema = z
  .array(keyValueSchema)
  .max(MAX_PAIRS)
  .meta({ description: 'Parameters added to every delivery body' });

/** The writable fields of a webhook: body of POST, PUT /{id} and PUT (upsert by collection). */
export const webhookInputSchema = z
  .strictObject({
    collection: collectionSchema,
    url: webhookUrlSchema.optional(),
    headers: headersSchema.optional(),
    body: bodySchema.optional(),
    enabled: z.boolean().optional().meta({ description: 'Whether events are delivered (default true)' }),
  })
  .meta({ id: 'WebhookInput', description: 'A webhook as written by a caller (interface 2.14)' });

/** Body of PATCH /{id}: a JSON merge patch of the writable fields; null removes url. */
export const webhookPatchSchema = z
  .strictObject({
    collection: collectionSchema.optional(),
    url: webhookUrlSchema.nullable().optional(),
    headers: headersSchema.optional(),
    body: bodySchema.optional(),
    enabled: z.boolean().optional(),
  })
  .meta({ id: 'WebhookPatch', description: 'JSON merge patch (RFC 7396) of a webhook' });

/** A webhook as the API shows it. */
export const webhookSchema = z
  .strictObject({
    _id: objectIdSchema,
    collection: z.string().meta({ example: 'products', maxLength: 64, pattern: '^[a-z][a-z0-9_]*$' }),
    url: z.string().optional().meta({ example: 'https://example.com/hooks/pim', maxLength: 2048, format: 'uri' }),
    headers: z.array(keyValueSchema).meta({ maxItems: MAX_PAIRS, description: 'Headers sent with every delivery' }),
    body: z.array(keyValueSchema).meta({ maxItems: MAX_PAIRS, description: 'Parameters added to every delivery body' }),
    enabled: z.boolean(),
    version: z.number().int().meta({
      description: 'Incremented on every write; sent as ETag',
      format: 'int32',
      minimum: 1,
      maximum: 2_147_483_647,
      example: 3,
    }),
    created_at: dateTimeSchema,
    updated_at: dateTimeSchema,
    created_by_name: z.string().optional().meta({
      description: 'The user of the API key that created the webhook',
      example: 'Maria Silva',
      maxLength: 200,
    }),
  })
  .meta({ id: 'Webhook', description: 'Webhook configuration (interface 2.14)' });

/** A webhook plus its signing secret, returned once when it is created. */
export const webhookWithSecretSchema = webhookSchema
  .extend({
    secret: z.string().meta({
      description: 'Signing secret (whsec_…); shown only in this response',
      example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$',
      maxLength: 128,
    }),
  })
  .meta({ id: 'WebhookWithSecret' });

/** Writable fields of a webhook. */
export type WebhookInput = z.infer<typeof webhookInputSchema>;
/** Merge patch of a webhook. */
export type WebhookPatch = z.infer<typeof webhookPatchSchema>;
/** A webhook as the API shows it. */
export type WebhookView = z.infer<typeof webhookSchema>;

/** Fields of the webhooks list: what can be filtered, sorted and searched. */
export const webhookListDecl = declareResource({
  collection: 'webhooks',
  fields: {
    _id: { type: 'id' },
    collection: { type: 'string', required: true, searchable: true },
    url: { type: 'string', searchable: true },
    enabled: { type: 'boolean' },
    version: { type: 'number' },
    created_at: { type: 'date' },
    updated_at: { type: 'date' },
    created_by_name: { type: 'string' },
  },
});
