import type { webhooks as pb } from '@pim/contracts';
import { requireId } from '@pim/ids';
import { buildEnvelope, parseListQuery } from '@pim/query';
import { toProtoListQuery, type PromiseClient } from '@pim/rpc';
import {
  webhookInputSchema,
  webhookListDecl,
  webhookPatchSchema,
  webhookSchema,
  webhookWithSecretSchema,
  type WebhookInput,
  type WebhookView,
} from '@pim/resources';
import type { Api } from '../http/route';
import { etag, etagHeaders, expectedVersion, ifMatchHeader, locationHeaders } from '../http/conditional';
import { listQuerySchema } from '../http/list';
import { envelopeSchema } from '../openapi/envelope';

/** The webhooks app's client as the gateway uses it. */
export type WebhooksClient = PromiseClient<pb.WebhooksServiceClient>;

/** The API's webhook input → proto (absent lists stay absent, so an upsert keeps them). */
export function toInput(b: WebhookInput): pb.WebhookInput {
  return {
    collection: b.collection,
    url: b.url,
    headers: b.headers ? { items: b.headers } : undefined,
    body: b.body ? { items: b.body } : undefined,
    enabled: b.enabled,
  };
}

/** Proto message → the API's webhook (`id` is `_id` in REST). */
export function fromMessage(m: pb.Webhook | undefined): WebhookView {
  if (!m) throw new Error('webhooks answered without a webhook');
  const v: WebhookView = {
    _id: m.id,
    collection: m.collection,
    headers: m.headers,
    body: m.body,
    enabled: m.enabled,
    version: m.version,
    created_at: m.created_at,
    updated_at: m.updated_at,
  };
  if (m.url !== undefined) v.url = m.url;
  if (m.created_by_name !== undefined) v.created_by_name = m.created_by_name;
  return v;
}

const idParam = (id: string) => requireId(id, 'webhook');

const TAGS = ['Webhooks'];

/** What an upsert answers: the webhook, with its signing secret only when the upsert created it. */
const upsertedWebhookSchema = webhookWithSecretSchema.partial({ secret: true }).meta({
  id: 'UpsertedWebhook',
  description: 'The webhook after an upsert; `secret` is present only when the upsert created it',
});

/** Declares the webhook routes (interface 4.1, 4.2 and the id-based routes beside them). */
export function webhookRoutes(
  api: Api,
  client: WebhooksClient,
  limits: { maxLimit: number; defaultLimit: number },
): void {
  const webhookListSchema = envelopeSchema('WebhookList', webhookSchema, limits.maxLimit);

  api.route({
    method: 'put',
    path: '/webhooks',
    operationId: 'upsertWebhook',
    scope: 'webhooks:write',
    summary: 'Create or update the webhook of a collection',
    description:
      'Upserts by `collection` (interface 4.1): creates the webhook when the collection has none (the response then carries its signing `secret`, shown only once), otherwise writes the given fields onto it; omitted fields keep their values.',
    tags: TAGS,
    body: webhookInputSchema,
    requestHeaders: ifMatchHeader,
    errors: [409, 412],
    responses: {
      200: { description: 'The webhook after the write', schema: upsertedWebhookSchema, headers: etagHeaders },
    },
    handler: async ({ body, headers }) => {
      const r = await client.upsertWebhook({
        webhook: toInput(body),
        expected_version: expectedVersion(headers['if-match'] as string | undefined),
      });
      const webhook = fromMessage(r.webhook);
      return {
        status: 200,
        body: r.secret ? { ...webhook, secret: r.secret } : webhook,
        headers: { ETag: etag(webhook.version) },
      };
    },
  });

  api.route({
    method: 'get',
    path: '/webhooks',
    operationId: 'listWebhooks',
    scope: 'webhooks:read',
    summary: 'List webhooks',
    description: 'Pagination, sorting, filters and `_search` as in every list (interface 4.2).',
    tags: TAGS,
    query: listQuerySchema(webhookListDecl, limits.maxLimit),
    responses: { 200: { description: 'A page of webhooks', schema: webhookListSchema } },
    handler: async ({ query, path }) => {
      const q = parseListQuery(webhookListDecl, query, {
        maxLimit: limits.maxLimit,
        defaultLimit: limits.defaultLimit,
      });
      const r = await client.listWebhooks({ query: toProtoListQuery(q) });
      const data = r.data.map(fromMessage);
      return {
        status: 200,
        body: buildEnvelope({
          query: q,
          total: r.page_info?.total ?? 0,
          data,
          path,
          raw: query,
          decl: webhookListDecl,
        }),
      };
    },
  });

  api.route({
    method: 'post',
    path: '/webhooks',
    operationId: 'createWebhook',
    scope: 'webhooks:write',
    summary: 'Create a webhook',
    description: 'The response carries the signing `secret` (whsec_…); it is shown only here.',
    tags: TAGS,
    body: webhookInputSchema,
    errors: [409],
    responses: {
      201: {
        description: 'The new webhook and its signing secret',
        schema: webhookWithSecretSchema,
        headers: etagHeaders.extend(locationHeaders.shape),
      },
    },
    handler: async ({ body, path }) => {
      const r = await client.createWebhook({ webhook: toInput(body) });
      const webhook = fromMessage(r.webhook);
      return {
        status: 201,
        body: { ...webhook, secret: r.secret },
        headers: { ETag: etag(webhook.version), Location: `${path}/${webhook._id}` },
      };
    },
  });

  api.route({
    method: 'get',
    path: '/webhooks/:id',
    operationId: 'getWebhook',
    scope: 'webhooks:read',
    summary: 'Get a webhook',
    tags: TAGS,
    responses: { 200: { description: 'The webhook', schema: webhookSchema, headers: etagHeaders } },
    handler: async ({ params }) => {
      const webhook = fromMessage((await client.getWebhook({ id: idParam(params.id) })).webhook);
      return { status: 200, body: webhook, headers: { ETag: etag(webhook.version) } };
    },
  });

  api.route({
    method: 'put',
    path: '/webhooks/:id',
    operationId: 'replaceWebhook',
    scope: 'webhooks:write',
    summary: 'Replace a webhook',
    description: 'Replaces every writable field; omitted optional fields return to their defaults.',
    tags: TAGS,
    body: webhookInputSchema,
    requestHeaders: ifMatchHeader,
    errors: [409, 412],
    responses: { 200: { description: 'The webhook after the write', schema: webhookSchema, headers: etagHeaders } },
    handler: async ({ params, body, headers }) => {
      const id = idParam(params.id);
      const r = await client.updateWebhook({
        id,
        webhook: toInput(body),
        expected_version: expectedVersion(headers['if-match'] as string | undefined),
      });
      const webhook = fromMessage(r.webhook);
      return { status: 200, body: webhook, headers: { ETag: etag(webhook.version) } };
    },
  });

  api.route({
    method: 'patch',
    path: '/webhooks/:id',
    operationId: 'patchWebhook',
    scope: 'webhooks:write',
    summary: 'Patch a webhook',
    description: 'JSON merge patch (RFC 7396): fields present are written, `url: null` removes the URL.',
    tags: TAGS,
    body: webhookPatchSchema,
    requestHeaders: ifMatchHeader,
    errors: [409, 412],
    responses: { 200: { description: 'The webhook after the write', schema: webhookSchema, headers: etagHeaders } },
    handler: async ({ params, body, headers }) => {
      const id = idParam(params.id);
      const r = await client.patchWebhook({
        id,
        patch: body,
        expected_version: expectedVersion(headers['if-match'] as string | undefined),
      });
      const webhook = fromMessage(r.webhook);
      return { status: 200, body: webhook, headers: { ETag: etag(webhook.version) } };
    },
  });

  api.route({
    method: 'delete',
    path: '/webhooks/:id',
    operationId: 'deleteWebhook',
    scope: 'webhooks:write',
    summary: 'Delete a webhook',
    description: 'Soft delete: the webhook stops receiving events and vanishes from gets and lists.',
    tags: TAGS,
    requestHeaders: ifMatchHeader,
    errors: [412],
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ params, headers }) => {
      await client.deleteWebhook({
        id: idParam(params.id),
        expected_version: expectedVersion(headers['if-match'] as string | undefined),
      });
      return { status: 204 };
    },
  });
}
