import { z } from 'zod';
import { keyValueSchema } from './common';
import { field } from './declare/field';
import { defineResource } from './declare/resource';
import { Product } from './products';
import { codeSchema, codeViewSchema } from './codes';
import { languageCodeSchema } from './taxonomy';
import { httpHeaderSchema, webhookUrlSchema } from './webhooks';

// Channels: where products are published. A channel of kind `http` receives each publication as
// one request to its endpoint, with the product mapped into the channel's own field names.

/** How a channel is reached. */
export const CHANNEL_KINDS = ['http'] as const;
/** The HTTP methods a channel endpoint may take. */
export const CHANNEL_METHODS = ['POST', 'PUT'] as const;

/** Most mapping entries and required attributes of a channel. */
const MAX_MAPPING = 200;
const MAX_HEADERS = 50;
/** A channel endpoint's time to answer, bounds and default (ms). */
export const CHANNEL_TIMEOUT = { min: 100, max: 60_000, default: 10_000 } as const;

/** Headers the publisher sets itself on every request. */
export const CHANNEL_RESERVED_HEADERS = ['content-type', 'content-length', 'host', 'idempotency-key'];

/** The product fields a mapping may read (besides `attributes.<key>`), as the REST API names them. */
export const MAPPABLE_PRODUCT_FIELDS = [
  '_id',
  'created_at',
  'updated_at',
  'version',
  ...Object.keys(Product.fields).filter((f) => f !== 'attributes'),
];

const SEGMENT = '[A-Za-z0-9_-]+';
/** A mapping source: a product field or `attributes.<key>`, optionally followed by a path into its value. */
export const MAPPING_SOURCE = new RegExp(`^(?:attributes\\.${SEGMENT}|[A-Za-z_][A-Za-z0-9_]*)(?:\\.${SEGMENT})*$`);
/** A mapping target: a dotted path in the payload (`title`, `seller.sku`). */
export const MAPPING_TARGET = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/;

const endpointSchema = z
  .strictObject({
    url: webhookUrlSchema.meta({
      description: 'Absolute http(s) URL each publication is sent to',
      example: 'https://shop.example.com/api/listings',
    }),
    method: z.enum(CHANNEL_METHODS).default('POST').meta({ description: 'POST (default) or PUT' }),
    headers: z
      .array(
        httpHeaderSchema.refine((kv) => !CHANNEL_RESERVED_HEADERS.includes(kv.key.toLowerCase()), {
          message: `key may not be one the publisher sets itself (${CHANNEL_RESERVED_HEADERS.join(', ')})`,
          path: ['key'],
        }),
      )
      .max(MAX_HEADERS)
      .default([])
      .meta({
        description:
          'Headers sent with every request, the channel credentials usually (Authorization). Values are shown back masked; sending a masked value back keeps the stored one',
      }),
    timeout_ms: z
      .number()
      .int()
      .min(CHANNEL_TIMEOUT.min)
      .max(CHANNEL_TIMEOUT.max)
      .default(CHANNEL_TIMEOUT.default)
      .meta({
        format: 'int32',
        description: `How long the channel has to answer, in milliseconds (default ${CHANNEL_TIMEOUT.default})`,
      }),
  })
  .meta({ id: 'ChannelEndpoint', description: 'Where and how publications are sent (kind http)' });

const endpointViewSchema = z
  .strictObject({
    url: z.string().max(2048).meta({ format: 'uri' }),
    method: z.enum(CHANNEL_METHODS),
    headers: z.array(keyValueSchema).max(MAX_HEADERS).meta({ description: 'The headers, values masked' }),
    timeout_ms: z.number().int().min(CHANNEL_TIMEOUT.min).max(CHANNEL_TIMEOUT.max).meta({ format: 'int32' }),
  })
  .meta({ id: 'ChannelEndpointView', description: 'Where and how publications are sent; header values masked' });

const mappingEntrySchema = z
  .strictObject({
    field: z
      .string()
      .min(1)
      .max(200)
      .regex(MAPPING_TARGET, 'must be a dotted path of names, like title or seller.sku')
      .meta({
        description: "The channel's field: a dotted path in the payload sent",
        example: 'title',
      }),
    source: z
      .string()
      .min(1)
      .max(300)
      .regex(MAPPING_SOURCE, 'must be a product field or attributes.<key>, optionally with a path into its value')
      .refine((s) => s.startsWith('attributes.') || MAPPABLE_PRODUCT_FIELDS.includes(s.split('.')[0]), {
        message: `must start with attributes.<key> or a product field (${MAPPABLE_PRODUCT_FIELDS.join(', ')})`,
      })
      .meta({
        description:
          "Where the value comes from: a product field (code, name, brand_id…) or attributes.<key>, optionally with a path into the value (attributes.price.amount). A translated value (name, a localizable text) is taken in the channel's language",
        example: 'name',
      }),
  })
  .meta({
    id: 'ChannelMapping',
    description: "One field of the channel's payload and the product value that fills it",
  });

/** Two targets clash when they are equal or one is a prefix path of the other (`a` and `a.b`). */
export function mappingClashes(mapping: { field: string }[]): string[] {
  const problems: string[] = [];
  const fields = mapping.map((m) => m.field);
  fields.forEach((f, i) => {
    fields.forEach((g, j) => {
      if (j <= i) return;
      if (f === g) problems.push(`${f} is mapped twice`);
      else if (g.startsWith(`${f}.`) || f.startsWith(`${g}.`)) problems.push(`${f} and ${g} overlap`);
    });
  });
  return problems;
}

const mappingSchema = z
  .array(mappingEntrySchema)
  .max(MAX_MAPPING)
  .superRefine((m, ctx) => {
    for (const message of mappingClashes(m)) ctx.addIssue({ code: 'custom', message });
  })
  .meta({
    description:
      "The payload's fields, each filled from the product; empty: the payload is the whole product as the API shows it",
  });

const attributeKeysSchema = z
  .array(
    z
      .string()
      .min(1)
      .max(100)
      .regex(/^[A-Za-z0-9_-]+$/, 'must be an attribute key'),
  )
  .max(MAX_MAPPING)
  .refine((keys) => new Set(keys).size === keys.length, 'must name each attribute once')
  .meta({
    description:
      "Attribute keys a product must have filled to be published here (a localizable text: in the channel's language when it has one)",
    example: ['color'],
  });

/**
 * Channels, declared once: a code unique among live channels, where and how publications are
 * sent (the endpoint, its credentials masked in every answer), what the payload carries (the
 * mapping, in one language), what a product must have to be published (readiness), and whether a
 * change of a published product publishes it again.
 */
export const Channel = defineResource({
  collection: 'channels',
  description: 'Channel: a sales channel products are published to',
  inputDescription: 'A channel as written by a caller',
  fields: {
    code: field
      .of('string', {
        input: codeSchema({ description: 'Unique among live channels', example: 'web-shop' }),
        view: codeViewSchema(),
      })
      .required()
      .searchable()
      .normalized(),
    name: field
      .of('string', { input: z.string().min(1).max(200).meta({ example: 'Web shop' }), view: z.string().max(200) })
      .required()
      .searchable(),
    image: field.of('string', {
      input: webhookUrlSchema.meta({ description: "The channel's logo (an http(s) URL)", format: 'uri' }),
      view: z.string().max(2048),
    }),
    enabled: field.flag('Whether publications may be created for it (default true)').default(true),
    kind: field
      .of('string', { input: z.enum(CHANNEL_KINDS).meta({ description: 'How it is reached: http' }) })
      .default('http'),
    endpoint: field.of('object', { input: endpointSchema, view: endpointViewSchema }).required().listed(false),
    language: field.of('string', {
      input: languageCodeSchema.meta({
        description: 'The language translated values are sent in (name, description, localizable texts)',
        example: 'pt-BR',
      }),
      view: z.string().max(35),
    }),
    mapping: field.of('array', { input: mappingSchema }).default([]).listed(false),
    required_attributes: field.of('string[]', { input: attributeKeysSchema }).default([]),
    auto_republish: field
      .flag('A change of a product published here publishes it again (default false)')
      .default(false),
  },
});

/** A channel as the API shows it. */
export type ChannelView = z.infer<typeof Channel.schemas.view>;
/** The writable fields of a channel. */
export type ChannelInput = z.infer<typeof Channel.schemas.input>;
/** A channel's endpoint as written (header values in clear). */
export type ChannelEndpoint = z.infer<typeof endpointSchema>;
/** One entry of a channel's mapping. */
export type ChannelMapping = z.infer<typeof mappingEntrySchema>;
