import { z } from 'zod';
import { buildEnvelope, parseListQuery } from '@pim/query';
import type { Api } from '../http/route';
import type { ApiKeyService } from '../auth/api-key.service';
import { apiKeyInputSchema, apiKeyListDecl, apiKeySchema, apiKeyWithTokenSchema } from '../auth/api-key.schemas';
import { locationHeaders } from '../http/conditional';
import { listQueryDoc } from '../http/list';
import { envelopeSchema } from '../openapi/envelope';

const TAGS = ['API keys'];

/** /api-keys: managed by admins; secrets are shown once, on creation and rotation. */
export function apiKeyRoutes(api: Api, keys: ApiKeyService, limits: { maxLimit: number; defaultLimit: number }): void {
  api.route({
    method: 'post',
    path: '/api-keys',
    operationId: 'createApiKey',
    scope: 'admin',
    summary: 'Create an API key',
    description: 'The response carries the full key in `key`; it is shown only here (store it now).',
    tags: TAGS,
    body: apiKeyInputSchema,
    responses: {
      201: { description: 'The new key and its secret', schema: apiKeyWithTokenSchema, headers: locationHeaders },
    },
    handler: async ({ body, path }) => {
      const { key, token } = await keys.create(body);
      return { status: 201, body: { ...key, key: token }, headers: { Location: `${path}/${key._id}` } };
    },
  });

  api.route({
    method: 'get',
    path: '/api-keys',
    operationId: 'listApiKeys',
    scope: 'admin',
    summary: 'List API keys',
    tags: TAGS,
    listQuery: listQueryDoc('ApiKey', 'API keys', apiKeyListDecl, limits.maxLimit),
    responses: {
      200: {
        description: 'A page of keys (never their secrets)',
        schema: envelopeSchema('ApiKeyList', apiKeySchema, limits.maxLimit),
      },
    },
    handler: async ({ query, path, origin }) => {
      const q = parseListQuery(apiKeyListDecl, query, limits);
      const { data, total } = await keys.list(q);
      return {
        status: 200,
        body: buildEnvelope({ query: q, total, data, path: `${origin}${path}`, raw: query, decl: apiKeyListDecl }),
      };
    },
  });

  api.route({
    method: 'get',
    path: '/api-keys/:id',
    operationId: 'getApiKey',
    scope: 'admin',
    summary: 'Get an API key',
    tags: TAGS,
    responses: { 200: { description: 'The key (never its secret)', schema: apiKeySchema } },
    handler: async ({ params }) => ({ status: 200, body: await keys.get(params.id) }),
  });

  api.route({
    method: 'delete',
    path: '/api-keys/:id',
    operationId: 'revokeApiKey',
    scope: 'admin',
    summary: 'Revoke an API key',
    description: 'The key stops working at once; it stays listed with `revoked: true`.',
    tags: TAGS,
    responses: { 204: { description: 'Revoked' } },
    handler: async ({ params }) => {
      await keys.revoke(params.id);
      return { status: 204 };
    },
  });

  api.route({
    method: 'post',
    path: '/api-keys/:id/rotate',
    operationId: 'rotateApiKey',
    scope: 'admin',
    summary: 'Rotate an API key',
    description: 'Gives the key a new secret (same prefix, scopes and user); the old secret stops working at once.',
    tags: TAGS,
    body: z
      .strictObject({})
      .optional()
      .meta({ id: 'Empty', description: 'Nothing: the body may be left out or be {}' }),
    responses: { 200: { description: 'The key and its new secret', schema: apiKeyWithTokenSchema } },
    handler: async ({ params }) => {
      const { key, token } = await keys.rotate(params.id);
      return { status: 200, body: { ...key, key: token } };
    },
  });
}
