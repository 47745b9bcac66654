import { loadSync } from '@grpc/proto-loader';
import { PROTO_FILES, PROTO_ROOT } from '@pim/contracts';
import { COLLECTIONS, eventTypes } from './collections';
import { deliveryAttemptSchema, deliverySchema, eventCatalog, TEST_EVENT_TYPE } from './deliveries';

const pkg = loadSync(PROTO_FILES.webhooks, { includeDirs: [PROTO_ROOT], keepCase: true });
const fieldsOf = (message: string): string[] =>
  (pkg[message] as unknown as { type: { field: { name: string }[] } }).type.field.map((f) => f.name).sort();
const restToProto = (keys: string[]) => keys.map((k) => (k === '_id' ? 'id' : k)).sort();

describe('delivery contract: zod schema vs proto message', () => {
  it('Delivery has the same fields in REST and gRPC', () => {
    expect(restToProto(Object.keys(deliverySchema.shape))).toEqual(fieldsOf('pim.webhooks.v1.Delivery'));
  });

  it('DeliveryAttempt has the same fields in REST and gRPC', () => {
    expect(restToProto(Object.keys(deliveryAttemptSchema.shape))).toEqual(fieldsOf('pim.webhooks.v1.DeliveryAttempt'));
  });
});

describe('event catalog', () => {
  const catalog = eventCatalog();

  it('lists every event type of every collection once, plus the test event', () => {
    const expected = [...COLLECTIONS.flatMap(eventTypes), TEST_EVENT_TYPE];
    expect(catalog.map((e) => e.type)).toEqual(expected);
    expect(new Set(catalog.map((e) => e.type)).size).toBe(catalog.length);
    expect(catalog.find((e) => e.type === 'orders.status_changed')).toMatchObject({
      collection: 'orders',
      action: 'status_changed',
      app: 'orders',
    });
  });

  it('gives each a JSON schema of its data: the real one where the resource schema exists', () => {
    const webhook = catalog.find((e) => e.type === 'webhooks.updated')!;
    const text = JSON.stringify(webhook.schema);
    expect(webhook.schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    for (const field of ['collection', 'headers', 'enabled', 'version']) expect(text).toContain(`"${field}"`);
    expect(text).not.toContain('secret');
    const product = catalog.find((e) => e.type === 'products.created')!;
    expect(product.schema).toMatchObject({
      type: 'object',
      required: ['_id', 'version', 'created_at', 'updated_at'],
      additionalProperties: {},
    });
    const test = catalog.find((e) => e.type === TEST_EVENT_TYPE)!;
    expect(test.schema).toMatchObject({ $ref: '#/$defs/TestEventData' });
    expect(JSON.stringify(test.schema)).toContain('webhook_id');
  });
});
