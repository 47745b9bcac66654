import { z, type ZodType } from 'zod';
import type { ResponseConfig } from '@asteasolutions/zod-to-openapi';

/** One OpenAPI header object. */
export interface HeaderObject {
  description?: string;
  required: boolean;
  schema: Record<string, unknown>;
}

/** A response's headers: header objects or references to header components. */
export type HeadersObject = Record<string, HeaderObject | { $ref: string }>;

/** Headers in the type zod-to-openapi takes (its type is the union of three OpenAPI versions' objects). */
export const responseHeaders = (headers: HeadersObject): NonNullable<ResponseConfig['headers']> =>
  headers as NonNullable<ResponseConfig['headers']>;

// Response headers the gateway sends under /api/v1, described once. The document holds each under
// components/headers and every response refers to it, so a response lists its headers in a line.

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

interface HeaderSpec {
  schema: ZodType;
  description: string;
  required: boolean;
}

/** Every header the gateway itself adds to responses, by name. */
export const SHARED_HEADERS = {
  'RateLimit-Limit': {
    schema: z.number().int().min(1).max(MAX_SAFE).meta({ format: 'int64', example: 600 }),
    description:
      'Requests the caller may make in the current one-minute window (per API key; per IP address without a valid key)',
    required: true,
  },
  'RateLimit-Remaining': {
    schema: z.number().int().min(0).max(MAX_SAFE).meta({ format: 'int64', example: 599 }),
    description: 'Requests left in the current window',
    required: true,
  },
  'RateLimit-Reset': {
    schema: z.number().int().min(1).max(60).meta({ format: 'int32', example: 42 }),
    description: 'Seconds until the current window ends and the count starts again',
    required: true,
  },
  'RateLimit-Policy': {
    schema: z
      .string()
      .regex(/^\d+;w=60$/)
      .max(24)
      .meta({ example: '600;w=60' }),
    description: 'The limit and its window in seconds (draft-ietf-httpapi-ratelimit-headers)',
    required: true,
  },
  'X-Request-Id': {
    schema: z
      .string()
      .regex(/^[A-Za-z0-9._:-]{1,128}$/)
      .max(128)
      .meta({ example: '0b5f3a4e-8c1d-4f7a-9e2b-6d3c1a2b4c5d' }),
    description:
      "The request's id: the caller's X-Request-Id when it is 1-128 characters of A-Z a-z 0-9 . _ : -, else a new UUID; error objects repeat it as request_id",
    required: true,
  },
  'Access-Control-Allow-Origin': {
    schema: z.string().max(2048).meta({ format: 'uri', example: 'https://app.example.com' }),
    description:
      "CORS: the request's Origin, echoed only when it is one of the configured origins (CORS_ORIGINS; none by default, as server-to-server callers need no CORS)",
    required: false,
  },
  'Retry-After': {
    schema: z.number().int().min(1).max(86_400).meta({ format: 'int32', example: 5 }),
    description: 'Seconds to wait before sending the request again',
    required: true,
  },
  ETag: {
    schema: z
      .string()
      .regex(/^"\d{1,10}"$/)
      .max(12)
      .meta({ example: '"3"' }),
    description: 'Version of the record; send it back in If-Match or If-None-Match',
    required: true,
  },
  Location: {
    schema: z
      .string()
      .max(2048)
      .meta({ format: 'uri-reference', example: '/api/v1/webhooks/6740a1b2c3d4e5f601234567' }),
    description: 'Path of the new record',
    required: true,
  },
  'Idempotent-Replayed': {
    schema: z.literal('true'),
    description:
      'Present when this is the stored response of an earlier request with the same Idempotency-Key and body',
    required: false,
  },
} satisfies Record<string, HeaderSpec>;

/** A header the gateway adds. */
export type SharedHeader = keyof typeof SHARED_HEADERS;

/**
 * Headers of every 2xx, 3xx and 4xx response under /api/v1: the request has passed the gate, which
 * counts every request (with a key or not) and sets the rate-limit headers before anything else.
 */
export const COUNTED_HEADERS: readonly SharedHeader[] = [
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'RateLimit-Policy',
  'X-Request-Id',
  'Access-Control-Allow-Origin',
];

/** Headers of every 5xx response: the rate-limit headers are there only when the request was counted before it failed. */
export const UNCOUNTED_HEADERS: readonly SharedHeader[] = ['X-Request-Id', 'Access-Control-Allow-Origin'];

/** A header's value schema as OpenAPI 3.1 (JSON Schema 2020-12) from its zod schema. */
function valueSchema(schema: ZodType): Record<string, unknown> {
  const {
    $schema: _dialect,
    description: _description,
    ...json
  } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return json;
}

/** A header object: description and required-ness on the header, the value's constraints in its schema. */
export function headerObject(schema: ZodType, description?: string, required?: boolean): HeaderObject {
  const isRequired = required ?? !schema.safeParse(undefined).success;
  const inner = schema instanceof z.ZodOptional ? (schema.unwrap() as ZodType) : schema;
  const text = description ?? schema.description ?? inner.description;
  return { ...(text ? { description: text } : {}), required: isRequired, schema: valueSchema(inner) };
}

/** The component of a shared header. */
export function sharedHeaderObject(name: SharedHeader): HeaderObject {
  const spec: HeaderSpec = SHARED_HEADERS[name];
  return headerObject(spec.schema, spec.description, spec.required);
}

/** A reference to a shared header's component. */
export const headerRef = (name: SharedHeader): { $ref: string } => ({ $ref: `#/components/headers/${name}` });

/** Route-declared response headers (a zod object of header name → value schema) as header objects. */
export function ownHeaders(headers: z.ZodObject | undefined): Record<string, HeaderObject> {
  return Object.fromEntries(
    Object.entries(headers?.shape ?? {}).map(([name, schema]) => [name, headerObject(schema as ZodType)]),
  );
}
