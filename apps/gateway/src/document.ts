import { z, type ZodType } from 'zod';
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { Webhook, dateTimeSchema, objectIdSchema } from '@pim/resources';
import { CATALOG_TAG_DESCRIPTIONS } from './routes/catalog/catalog.routes';
import { SECURITY_SCHEME } from './http/route';
import { FILTER_GRAMMAR } from './http/list';
import { errorObjectSchema } from './openapi/errors';
import { compactDocument } from './openapi/compact';
import { addExamples } from './openapi/examples';

/** The registry every route declares itself in. */
export function createRegistry(): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', SECURITY_SCHEME, {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'pim_<prefix>_<secret>',
    description:
      'An API key in the Authorization header: `Authorization: Bearer pim_<prefix>_<secret>`. Each route names the scope it needs.',
  });
  return registry;
}

/** An OpenAPI 3.1 document as zod-to-openapi builds it. */
export type ApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

/** A server entry of the document. */
export type ApiServer = NonNullable<ApiDocument['servers']>[number];

/** Descriptions of the tags routes use (a unit test checks that every tag has one). */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  ...CATALOG_TAG_DESCRIPTIONS,
  Channels:
    'Sales channels products are published to (marketplaces, stores): the attributes each requires, its language and automatic republishing',
  Exports:
    'Exports of products to CSV or XLSX files: each runs as a job; download the file once it is completed, within its retention period',
  'Import templates':
    'Saved import settings (worksheet, header row, column mapping, time zone) for files of the same layout',
  Imports:
    'Imports of spreadsheet files (XLSX, ODS, CSV): upload a file, map its columns, then follow its progress and its errors row by row',
  Orders: 'Orders sold through a channel, moving through the statuses of the workflow they follow',
  'Product approvals':
    'Changes to products that wait for approval: each goes through the steps of its workflow approval, approved or rejected step by step',
  'Publication batches':
    'Many products published to a channel at once: the progress, and each product the batch refused with the reason',
  Publications:
    'A product published to a channel: its status, the tracking of each attempt and the product as it was sent',
  'Users groups':
    'Groups of users and their access to products: full access, or through the catalogs and attribute groups that name them',
  'Workflow approvals': 'Approval flows: the steps, with their approvers, that a change to a product goes through',
  Workflows: 'The steps and statuses orders move through, who works in each step and how long each may take',
  Webhooks: 'Webhook configuration',
  'API keys': 'API keys and their scopes (admin only); a secret is shown once, on creation and rotation',
  'Dead letters':
    'Events that could not be delivered after every retry, set aside so the others keep flowing (admin only): list them, try them again once the cause is fixed, or discard them',
};

/** The server of a document built without a public URL (the exported one): the gateway `npm start` runs. */
export const DEFAULT_SERVER_URL = 'http://127.0.0.1:8080';

/**
 * The `servers` entry: the gateway's public URL (its PUBLIC_URL), where the document is served
 * from. A document built without one (the exported file generated clients are made from) names
 * the local gateway `npm start` runs, and says where a deployment's own URL is. Each is for the
 * API's callers (`x-internal: false`: a public bundle keeps it) and says its environment.
 */
export function serverEntry(publicUrl?: string): ApiServer {
  const url = publicUrl?.replace(/\/+$/, '');
  if (!url) {
    return {
      url: DEFAULT_SERVER_URL,
      description:
        'A local gateway, as `npm start` runs it (port 8080, plain HTTP). Every deployment serves this document at /api/v1/openapi.json naming its own public URL here (production or staging): call that one.',
      'x-internal': false,
    };
  }
  return {
    url,
    description: /^https:\/\//i.test(url)
      ? 'This deployment (its public URL): production or staging'
      : 'This gateway over plain HTTP (its public URL): a local or test deployment; production is served over HTTPS',
    'x-internal': false,
  };
}

/** A zod schema as the generator writes it inside another (to find its copies in the document). */
function rendered(schema: ZodType): Record<string, unknown> {
  const { components } = new OpenApiGeneratorV31([
    { type: 'schema', schema: z.strictObject({ value: schema }).meta({ id: 'Rendered' }) },
  ]).generateComponents();
  const holder = components?.schemas?.Rendered as { properties: Record<string, Record<string, unknown>> };
  return holder.properties.value;
}

/** The OpenAPI 3.1 document of everything registered. */
export function buildDocument(registry: OpenAPIRegistry, publicUrl?: string): ApiDocument {
  const used = new Set(registry.definitions.flatMap((d) => (d.type === 'route' ? (d.route.tags ?? []) : [])));
  // Error responses are shared components that refer to the Error schema by name, so it is added here.
  const doc = new OpenApiGeneratorV31([
    ...registry.definitions,
    { type: 'schema', schema: errorObjectSchema },
  ]).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'PIM platform API',
      version: '1.0.0',
      description:
        'Product information management: catalog, approvals, imports and exports, publications, orders and webhooks. Every error has the shape of the Error schema. ' +
        'Every response under /api/v1 carries RateLimit-* headers (per API key, per IP address without one) and X-Request-Id.\n\n' +
        FILTER_GRAMMAR,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      contact: { name: 'PIM platform team' },
    },
    servers: [serverEntry(publicUrl)],
    tags: [...used]
      .sort()
      .map((name) => (TAG_DESCRIPTIONS[name] ? { name, description: TAG_DESCRIPTIONS[name] } : { name })),
  });
  // A record id and a timestamp appear hundreds of times: each is one component the others refer to.
  // So do the version and the creator every record shows last (a webhook's are every record's).
  const { version, created_by_name } = Webhook.schemas.view.shape;
  compactDocument(doc, {
    ObjectId: { schema: rendered(objectIdSchema), description: 'A record id' },
    DateTime: { schema: rendered(dateTimeSchema), description: 'An instant in UTC, ISO 8601 with milliseconds' },
    RecordVersion: { schema: rendered(version), description: 'The version of the record' },
    CreatedByName: { schema: rendered(created_by_name), description: 'Who created the record' },
  });
  addExamples(doc);
  return doc;
}
