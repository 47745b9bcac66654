import { z } from 'zod';
import { field } from './declare/field';
import { defineResource } from './declare/resource';
import { collectionNames, isCollection } from './collections';
import { keyValueSchema } from './common';

const MAX_PAIRS = 50;

/** RFC 9110 token: what an HTTP header name may contain. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * What an HTTP header value may hold: exactly what Node's HTTP client and undici send
 * (`http.validateHeaderValue`): tab and the characters U+0020–U+007E and U+0080–U+00FF. CR or LF
 * would end the header early, NUL and the other control characters are refused, and a header
 * carries single bytes, so nothing past U+00FF. A value outside it fails every request at send
 * time, which a delivery or a publication then retries for hours: it is refused when written.
 */
export const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

const REFUSED_IN_VALUE = /[^\t\x20-\x7e\x80-\xff]/u;
const NAMED_CHARACTERS: Record<string, string> = {
  '\r': 'a carriage return (CR)',
  '\n': 'a line feed (LF)',
  '\0': 'a NUL character',
};

/** The first character of a header value that an HTTP client refuses, in words; undefined when there is none. */
export function refusedHeaderCharacter(value: string): string | undefined {
  const found = REFUSED_IN_VALUE.exec(value);
  if (!found) return undefined;
  const code = `U+${found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  return `${NAMED_CHARACTERS[found[0]] ?? `the character ${code}`} at position ${found.index + 1}`;
}

/**
 * One HTTP header a delivery or a publication sends, checked as the HTTP client will check it:
 * its name a token, its value within HEADER_VALUE (the refusal names the header).
 */
export const httpHeaderSchema = z
  .strictObject({
    key: z.string().min(1).max(256).meta({ example: 'X-Api-Key' }),
    value: z.string().max(8192).meta({
      example: 'k3y',
      pattern: HEADER_VALUE.source,
      description:
        'Tab and the characters U+0020 to U+007E and U+0080 to U+00FF: no line breaks (CR, LF), NUL or other control characters, nothing past U+00FF',
    }),
  })
  .superRefine((kv, ctx) => {
    if (!HEADER_NAME.test(kv.key))
      ctx.addIssue({ code: 'custom', path: ['key'], message: 'key must be a valid HTTP header name' });
    const refused = refusedHeaderCharacter(kv.value);
    if (refused)
      ctx.addIssue({
        code: 'custom',
        path: ['value'],
        message: `value of header '${kv.key.slice(0, 64)}' holds ${refused}, which no HTTP request can carry: a header value takes tab and the characters U+0020 to U+007E and U+0080 to U+00FF only`,
      });
  })
  .meta({ description: 'An HTTP header: its name and its value' });

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
  .array(httpHeaderSchema)
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
  .meta({ id: 'WebhookWithSecret', description: 'A new webhook with its signing secret, shown only in this response' });

/** Writable fields of a webhook. */
export type WebhookInput = z.infer<typeof webhookInputSchema>;
/** Merge patch of a webhook. */
export type WebhookPatch = z.infer<typeof webhookPatchSchema>;
/** A webhook as the API shows it. */
export type WebhookView = z.infer<typeof webhookSchema>;

/** Fields of the webhooks list: what can be filtered, sorted and searched. */
export const webhookListDecl = Webhook.listDecl;
