import { z } from 'zod';
import { COLLECTIONS, collectionNames, eventTypes } from '@pim/resources';
import { declareResource } from '@pim/query';
import { fixedListRoute } from '../http/fixed-list';
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
  .meta({
    id: 'Collection',
    description: 'A collection of records: the app that owns it and the events its changes emit',
  });

/** The fields a list of collections is filtered, sorted and searched on. */
const collectionListDecl = declareResource({
  collection: 'collections',
  defaultSort: 'name',
  fields: {
    // Items held here have no record id: it is declared, as every list declares it, but never filtered or sorted.
    _id: { type: 'id', filterable: false, sortable: false },
    name: { type: 'string', sortable: true, searchable: true },
    app: { type: 'string', sortable: true },
  },
});

/** GET /collections: the collections a webhook may name, with their event types. */
export function collectionRoutes(api: Api, limits: { maxLimit: number; defaultLimit: number }): void {
  fixedListRoute(
    api,
    {
      path: '/collections',
      operationId: 'listCollections',
      scope: 'authenticated',
      summary: 'List the collections webhooks can subscribe to',
      description:
        'Every collection a webhook may name, with the app that owns it and its event types; in the list envelope, with pagination, sort (`name`, `app`), filters (`name`, `app`) and `_search` over the name.',
      tags: ['Webhooks'],
      decl: collectionListDecl,
      item: collectionSchema,
      listId: 'CollectionList',
      items: COLLECTIONS.map((c) => ({ name: c.name, app: c.app, event_types: eventTypes(c) })),
    },
    limits,
  );
}
