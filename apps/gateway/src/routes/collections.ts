import { z } from 'zod';
import { COLLECTIONS, collectionNames, eventTypes } from '@pim/resources';
import type { Api } from '../http/route';

const collectionSchema = z
  .strictObject({
    name: z.string().max(64).meta({ example: 'products', enum: collectionNames() }),
    app: z
      .string()
      .max(32)
      .meta({
        description: 'The app that owns the records',
        example: 'catalog',
        enum: [...new Set(COLLECTIONS.map((c) => c.app))].sort(),
      }),
    event_types: z
      .array(
        z
          .string()
          .regex(/^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/)
          .max(100),
      )
      .max(20)
      .meta({
        description: 'Event types of the collection: <collection>.<action>',
        example: ['products.created', 'products.updated', 'products.deleted'],
      }),
  })
  .meta({ id: 'Collection' });

/** GET /collections: the collections a webhook may name, with their event types. */
export function collectionRoutes(api: Api): void {
  api.route({
    method: 'get',
    path: '/collections',
    operationId: 'listCollections',
    scope: 'authenticated',
    summary: 'List the collections webhooks can subscribe to',
    tags: ['Webhooks'],
    responses: {
      200: {
        description: 'Every collection',
        schema: z.strictObject({ data: z.array(collectionSchema).max(100) }).meta({ id: 'CollectionList' }),
      },
    },
    handler: async () => ({
      status: 200,
      body: { data: COLLECTIONS.map((c) => ({ name: c.name, app: c.app, event_types: eventTypes(c) })) },
    }),
  });
}
