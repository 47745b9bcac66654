import { z } from 'zod';
import { publisher as pb } from '@pim/contracts';
import { requireId } from '@pim/ids';
import {
  Channel,
  objectIdSchema,
  type ChannelInput,
  type ChannelView,
  Publication,
  type PublicationInput,
  type PublicationView,
  PublicationBatch,
  type PublicationBatchInput,
  type PublicationBatchView,
} from '@pim/resources';
import { createRpcClient, recordClient, type PromiseClient, type RecordClient } from '@pim/rpc';
import { etag, etagHeaders, expectedVersion, ifMatchHeader, locationHeaders } from '../http/conditional';
import { declaredCodec } from '../http/declared.codec';
import { recordRoutes } from '../http/resource.routes';
import type { Api } from '../http/route';
import { API_BASE } from '../openapi/links';
import type { OwnerRoutes } from './owners';

/** The publisher app's services as the gateway calls them. */
interface PublisherClients {
  channels: RecordClient<pb.SalesChannel, pb.SalesChannelInput>;
  channelActions: PromiseClient<pb.SalesChannelsServiceClient>;
  publications: RecordClient<pb.Publication, pb.PublicationInput>;
  publicationActions: PromiseClient<pb.PublicationsServiceClient>;
  publicationBatches: RecordClient<pb.PublicationBatch, pb.PublicationBatchInput>;
  // generator:client-types
  close(): void;
}

const publicationCodec = declaredCodec<PublicationView, pb.Publication, pb.PublicationInput, PublicationInput>(
  Publication,
);

const batchCodec = declaredCodec<
  PublicationBatchView,
  pb.PublicationBatch,
  pb.PublicationBatchInput,
  PublicationBatchInput
>(PublicationBatch);

const readinessSchema = z
  .strictObject({
    ready: z
      .boolean()
      .meta({ description: 'Whether a publication of the product to the channel would be accepted now' }),
    missing: z
      .array(
        z.strictObject({
          field: z.string().max(200).meta({ example: 'attributes.color' }),
          message: z.string().max(1_000),
        }),
      )
      .max(500)
      .meta({
        description:
          'What keeps the product from the channel: each required attribute without a value, a disabled channel',
      }),
  })
  .meta({ id: 'ChannelReadiness', description: 'Whether a product may be published to a channel' });

const CHANNEL_CREATE =
  'The code must be free among live channels (409 otherwise). The endpoint URL must be an absolute http(s) URL on a public address: ' +
  'a private, loopback or link-local address is refused unless the operator allows its range. Header values (the channel credentials) ' +
  'are stored as written and shown back masked; writing a masked value back keeps the stored one.';

const PUBLICATION_CREATE =
  "Publishes a live product to an enabled channel: the publication is created `ready_to_publish` with the product's snapshot (the product " +
  'as it is now) and sent by the publisher (`publishing`) as one request to the channel endpoint, carrying the payload the channel mapping ' +
  'makes of the snapshot and an `Idempotency-Key` header with the publication _id. It ends `published` (with the `publishment_url` the ' +
  "channel answered, in its Location header or a `url` field) or `failed` (with the channel's message in `tracking`). A timeout, a " +
  'network error, a 408, 425, 429 or a 5xx is retried with a growing delay (`next_attempt_at`). A product without a value for an attribute ' +
  'the channel requires is refused here (400, naming each attribute); GET /channels/{id}/readiness tells before. An older publication of the ' +
  'same product and channel still waiting is superseded (failed, naming this one): the channel gets the product as it is now.';

/** `GET /channels/{id}/readiness?product_id=`. */
function readinessRoute(api: Api, client: () => PublisherClients): void {
  api.route({
    method: 'get',
    path: '/channels/:id/readiness',
    operationId: 'getChannelReadiness',
    scope: 'channels:read',
    summary: 'Whether a product may be published to the channel',
    description:
      'Checks what a publication of the product to this channel would be refused for: a disabled channel, or an attribute the channel requires without a value (a translated one: none in the channel language). Nothing is created.',
    tags: ['Channels'],
    query: z.object({ product_id: objectIdSchema.meta({ description: 'The product to check' }) }),
    errors: [404],
    responses: { 200: { description: 'What the product lacks, if anything', schema: readinessSchema } },
    handler: async ({ params, query }) => {
      const id = requireId(params.id, 'channel');
      const reply = await client().channelActions.getSalesChannelReadiness({
        id,
        product_id: (query as { product_id: string }).product_id,
      });
      return { status: 200, body: { ready: reply.ready, missing: reply.missing } };
    },
  });
}

/** `POST /publications/{id}/retry`. */
function retryRoute(api: Api, client: () => PublisherClients): void {
  api.route({
    method: 'post',
    path: '/publications/:id/retry',
    operationId: 'retryPublication',
    scope: 'publications:write',
    summary: 'Retry a failed publication',
    description:
      "Puts a `failed` publication back to `ready_to_publish`, due now, with a fresh retry schedule; it sends the snapshot it was created with. Any other state is a 409 naming it, and so is a publication with a newer one of the same product and channel (retry that one, or create a new publication to send the product as it is now). A publication of a product the caller's users groups do not see is a 404, as for none (docs/decisions/access.md).",
    tags: ['Publications'],
    requestHeaders: ifMatchHeader,
    errors: [404, 409, 412],
    responses: {
      200: { description: 'The publication, ready again', schema: Publication.schemas.view, headers: etagHeaders },
    },
    handler: async ({ params, headers }) => {
      const id = requireId(params.id, 'publication');
      const reply = await client().publicationActions.retryPublication({
        id,
        expected_version: expectedVersion(headers['if-match'] as string | undefined),
      });
      const record = publicationCodec.fromMessage(reply.data!);
      return { status: 200, body: record, headers: { ETag: etag(record.version) } };
    },
  });
}

/** `POST /publications/bulk`: a publication batch, run in the background. */
function bulkRoute(api: Api, client: () => PublisherClients): void {
  api.route({
    method: 'post',
    path: '/publications/bulk',
    operationId: 'publishInBulk',
    scope: 'publications:write',
    summary: 'Publish every product a set of filters selects to a channel',
    description:
      'Creates a publication batch for an enabled channel and product list filters (as GET /products takes them: brand_id, categories, enabled, _search, attributes.<key>, _id_in…; none: every live product) and answers at once with it, `pending`. ' +
      'The publisher then reads the matching products page by page and creates a publication of each (origin `bulk`, `batch_id` naming the batch), exactly as POST /publications would, ' +
      'each then sent and tracked on its own (GET /publications?batch_id=…). Products not ready for the channel are refused and listed in the batch with why. Follow the batch at the Location it answers ' +
      '(`processing` with its counts, then `completed`, or `failed` with `error` when the channel is deleted or disabled while it runs). Filters the product list does not take are a 400 here.',
    tags: ['Publications'],
    body: PublicationBatch.schemas.input,
    responses: {
      202: {
        description: 'The batch, pending',
        schema: PublicationBatch.schemas.view,
        headers: etagHeaders.extend(locationHeaders.shape),
      },
    },
    handler: async ({ body }) => {
      const reply = await client().publicationBatches.create!({
        input: batchCodec.toInput(body as PublicationBatchInput),
      });
      const record = batchCodec.fromMessage(reply.data!);
      return {
        status: 202,
        body: record,
        headers: { ETag: etag(record.version), Location: `${API_BASE}/publication-batches/${record._id}` },
      };
    },
  });
}

/** The publisher app's routes: channels (with readiness) and publications (with retry). */
export const publisherRoutes: OwnerRoutes = {
  app: 'publisher',
  addressEnv: 'PUBLISHER_GRPC_URL',
  defaultAddress: '127.0.0.1:50061',
  clients: (opts): PublisherClients => {
    const o = { service: 'publisher', ...opts };
    const channels = createRpcClient(pb.SalesChannelsServiceClient, o);
    const publications = createRpcClient(pb.PublicationsServiceClient, o);
    const publicationBatches = createRpcClient(pb.PublicationBatchesServiceClient, o);
    // generator:clients
    return {
      channels: recordClient(channels, pb.SalesChannelsServiceService, {
        one: 'SalesChannel',
        many: 'SalesChannels',
        handles: 'codes',
      }),
      channelActions: channels,
      publications: recordClient(publications, pb.PublicationsServiceService, {
        one: 'Publication',
        many: 'Publications',
        handles: 'codes',
        without: ['update', 'patch'],
      }),
      publicationActions: publications,
      publicationBatches: recordClient(publicationBatches, pb.PublicationBatchesServiceService, {
        one: 'PublicationBatch',
        many: 'PublicationBatches',
        handles: 'codes',
        without: ['update', 'patch'],
      }),
      // generator:client-entries
      close: () => {
        channels.close();
        publications.close();
        publicationBatches.close();
        // generator:close
      },
    };
  },
  routes: (api, clients, limits, related) => {
    const c = clients as () => PublisherClients;
    const channelCodec = declaredCodec<ChannelView, pb.SalesChannel, pb.SalesChannelInput, ChannelInput>(Channel);
    // A publication's list expands its product (the catalog's) and its channel.
    const loaders = {
      products: related.loaders.products,
      channels: async (ids: string[]) =>
        (await c().channels.batchGet({ ids, handles: [] })).data.map((m) => channelCodec.fromMessage(m)),
    };
    const views = { products: related.views.products, channels: Channel.schemas.view };
    recordRoutes(
      api,
      {
        collection: 'channels',
        searches: 'code and name',
        schemas: Channel.schemas,
        listDecl: Channel.listDecl,
        client: () => c().channels,
        codec: channelCodec,
        createDescription: CHANNEL_CREATE,
      },
      limits,
      {},
      {},
    );
    readinessRoute(api, c);
    recordRoutes(
      api,
      {
        collection: 'publications',
        handle: '_id',
        schemas: Publication.schemas,
        listDecl: Publication.listDecl,
        client: () => c().publications,
        codec: publicationCodec,
        without: ['replace', 'patch'],
        createDescription: PUBLICATION_CREATE,
      },
      limits,
      loaders,
      views,
    );
    retryRoute(api, c);
    bulkRoute(api, c);
    // Batches are created by POST /publications/bulk; read, listed and deleted here.
    recordRoutes(
      api,
      {
        collection: 'publication_batches',
        handle: '_id',
        schemas: PublicationBatch.schemas,
        listDecl: PublicationBatch.listDecl,
        client: () => c().publicationBatches,
        codec: batchCodec,
        without: ['create', 'replace', 'patch'],
        visibility:
          'An API key bound to a user whose users groups do not see every product sees only the batches that user created ' +
          '(POST /publications/bulk): the others are left out of lists and their totals, and reading or deleting one answers 404, ' +
          'as for a batch that does not exist. Admin keys, keys bound to no user and users in a group with ' +
          'has_full_product_access see every batch.',
      },
      limits,
      { channels: loaders.channels },
      { channels: Channel.schemas.view },
    );
    // generator:routes
  },
};
