import { z } from 'zod';
import { field } from './declare/field';
import { defineResource } from './declare/resource';
import { collectionNames, isCollection } from './collections';
import { keyValueSchema } from './common';

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

/**
 * Webhooks: one live webhook per collection receives that collection's events at its url, with
 * its headers, and its body pairs added to every payload.
 */
export const Webhook = defineResource({
  collection: 'webhooks',
  description: 'Webhook configuration',
  inputDescription: 'A webhook as written by a caller',
  fields: {
    collection: field
      .of('string', {
        input: collectionSchema,
        view: z.string().meta({ example: 'products', maxLength: 64, pattern: '^[a-z][a-z0-9_]*$' }),
      })
      .required()
      .searchable(),
    url: field
      .of('string', {
        input: webhookUrlSchema,
        view: z.string().meta({ example: 'https://example.com/hooks/pim', maxLength: 2048, format: 'uri' }),
      })
      .searchable(),
    headers: field
      .of('array', {
        input: headersSchema,
        view: z.array(keyValueSchema).meta({ maxItems: MAX_PAIRS, description: 'Headers sent with every delivery' }),
      })
      .default([]),
    body: field
      .of('array', {
        input: bodySchema,
        view: z
          .array(keyValueSchema)
          .meta({ maxItems: MAX_PAIRS, description: 'Parameters added to every delivery body' }),
      })
      .default([]),
    enabled: field
      .of('boolean', {
        input: z.boolean().meta({ description: 'Whether events are delivered (default true)' }),
        view: z.boolean(),
      })
      .default(true),
  },
});

/** The writable fields of a webhook: body of POST, PUT /{id} and PUT (upsert by collection). */
export const webhookInputSchema = Webhook.schemas.input;

/** Body of PATCH /{id}: a JSON merge patch of the writable fields; null returns a field to its default. */
export const webhookPatchSchema = Webhook.schemas.patch;

/** A webhook as the API shows it. */
export const webhookSchema = Webhook.schemas.view;

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
export const webhookListDecl = Webhook.listDecl;
