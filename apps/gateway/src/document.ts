import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { CATALOG_TAG_DESCRIPTIONS } from './routes/catalog/catalog.routes';
import { SECURITY_SCHEME } from './http/route';
import { errorObjectSchema } from './openapi/errors';

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

/** Descriptions of the tags routes use; a tag missing here is still listed (without one). */
const TAG_DESCRIPTIONS: Record<string, string> = {
  ...CATALOG_TAG_DESCRIPTIONS,
  Webhooks: 'Webhook configuration',
  'API keys': 'API keys and their scopes (admin only); a secret is shown once, on creation and rotation',
  'Dead letters':
    'Events that could not be delivered after every retry, set aside so the others keep flowing (admin only): list them, try them again once the cause is fixed, or discard them',
};

/**
 * The `servers` entry for the gateway's public URL. An https URL is listed as it is. A plain-http
 * one is a local or test gateway (production runs behind TLS): the document then names the
 * origin it was served from (`/`, the OpenAPI default) instead of advertising a plain-http address.
 */
export function serverEntry(publicUrl?: string): ApiServer {
  const url = publicUrl?.replace(/\/+$/, '');
  if (url && /^https:\/\//i.test(url)) {
    return {
      url,
      description: 'This deployment over HTTPS (its PUBLIC_URL): production or staging',
      'x-internal': false,
    };
  }
  return {
    url: '/',
    description:
      'Local development or test gateway: the origin that served this document, over plain HTTP (a production deployment sets an https PUBLIC_URL)',
    'x-internal': true,
  };
}

/** The OpenAPI 3.1 document of everything registered. */
export function buildDocument(registry: OpenAPIRegistry, publicUrl?: string): ApiDocument {
  const used = new Set(registry.definitions.flatMap((d) => (d.type === 'route' ? (d.route.tags ?? []) : [])));
  // Error responses are shared components that refer to the Error schema by name, so it is added here.
  return new OpenApiGeneratorV31([
    ...registry.definitions,
    { type: 'schema', schema: errorObjectSchema },
  ]).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'PIM platform API',
      version: '1.0.0',
      description:
        'Product information management: catalog, approvals, imports and exports, publications, orders and webhooks. Every error has the shape of the Error schema. ' +
        'Every response under /api/v1 carries RateLimit-* headers (per API key, per IP address without one) and X-Request-Id.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      contact: { name: 'PIM platform team' },
    },
    servers: [serverEntry(publicUrl)],
    tags: [...used]
      .sort()
      .map((name) => (TAG_DESCRIPTIONS[name] ? { name, description: TAG_DESCRIPTIONS[name] } : { name })),
  });
}
