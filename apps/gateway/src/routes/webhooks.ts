import type { webhooks as pb } from '@pim/contracts';
import type { PromiseClient } from '@pim/rpc';
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
import { recordRoutes } from '../http/resource.routes';

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

/** What an upsert answers: the webhook, with its signing secret only when the upsert created it. */
const upsertedWebhookSchema = webhookWithSecretSchema.partial({ secret: true }).meta({
  id: 'UpsertedWebhook',
  description: 'The webhook after an upsert; `secret` is present only when the upsert created it',
});

/** The webhook with its signing secret when the owner's reply carries one (a create). */
const withSecret = (webhook: WebhookView, reply: Record<string, unknown>) =>
  typeof reply.secret === 'string' && reply.secret !== '' ? { ...webhook, secret: reply.secret } : webhook;

/**
 * The webhook routes: the record routes of the `webhooks` collection (create answering the
 * signing secret once, list, get, replace, patch, delete) and the upsert by collection at
 * `PUT /webhooks`. Deliveries, tests, recovery and secret rotation are in `deliveries.ts`.
 */
export function webhookRoutes(
  api: Api,
  client: WebhooksClient,
  limits: { maxLimit: number; defaultLimit: number },
): void {
  recordRoutes(
    api,
    {
      collection: 'webhooks',
      handle: 'collection',
      searches: 'collection and url',
      schemas: { input: webhookInputSchema, patch: webhookPatchSchema, view: webhookSchema },
      listDecl: webhookListDecl,
      codec: { fromMessage, toInput },
      // The webhooks service predates the record convention: its messages carry `webhook`, not `input`/`data`.
      client: () => ({
        create: async (r) => {
          const { webhook, ...rest } = await client.createWebhook({ webhook: r.input });
          return { ...rest, data: webhook };
        },
        get: async (r) => ({ data: (await client.getWebhook(r)).webhook }),
        update: async (r) => ({
          data: (await client.updateWebhook({ id: r.id, webhook: r.input, expected_version: r.expected_version }))
            .webhook,
        }),
        patch: async (r) => ({ data: (await client.patchWebhook(r)).webhook }),
        delete: async (r) => ({ data: (await client.deleteWebhook(r)).webhook }),
        list: (r) => client.listWebhooks(r),
      }),
      created: {
        schema: webhookWithSecretSchema,
        description: 'The new webhook and its signing secret',
        body: withSecret,
      },
      upsert: {
        description:
          'Creates the webhook when the collection has none (the response then carries its signing `secret`, shown only once), otherwise writes the given fields onto it; omitted fields keep their values.',
        schema: upsertedWebhookSchema,
        call: async (input, expected_version) => {
          const { webhook, ...rest } = await client.upsertWebhook({ webhook: input, expected_version });
          return { ...rest, data: webhook };
        },
        body: withSecret,
      },
    },
    limits,
    {},
    {},
  );
}
