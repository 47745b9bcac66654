import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { SECURITY_SCHEME } from '../http/route';

/** The registry every route declares itself in. */
export function createRegistry(): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', SECURITY_SCHEME, {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'pim_<prefix>_<secret>',
    description: 'An API key in the Authorization header: `Authorization: Bearer pim_<prefix>_<secret>`. Each route names the scope it needs.',
  });
  return registry;
}

/** The OpenAPI 3.1 document of everything registered. */
export function buildDocument(registry: OpenAPIRegistry, serverUrl: string): ReturnType<OpenApiGeneratorV31['generateDocument']> {
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'PIM platform API',
      version: '1.0.0',
      description: 'Product information management: catalog, approvals, imports and exports, publications, orders and webhooks. Every error has the shape of the Error schema.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      contact: { name: 'PIM platform team' },
    },
    servers: [{ url: serverUrl }],
    tags: [{ name: 'Webhooks', description: 'Webhook configuration (interface 2.14, 4.1, 4.2)' }],
  });
}
