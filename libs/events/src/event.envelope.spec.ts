import { buildEnvelope, eventType, isEnvelope, subjectFor } from './event.envelope';

describe('subjectFor', () => {
  it('builds pim.<app>.<collection>.<action> after the prefix', () => {
    expect(subjectFor('', 'catalog', 'products', 'updated')).toBe('pim.catalog.products.updated');
    expect(subjectFor('t1a2b.', 'orders', 'orders', 'status_changed')).toBe('t1a2b.pim.orders.orders.status_changed');
  });

  it('refuses tokens that would change which consumers match', () => {
    expect(() => subjectFor('', 'catalog', 'products.x', 'updated')).toThrow(/collection/);
    expect(() => subjectFor('', 'catalog', 'products', '*')).toThrow(/action/);
    expect(() => subjectFor('', 'cat alog', 'products', 'updated')).toThrow(/app/);
    expect(() => subjectFor('', 'catalog', '>', 'updated')).toThrow(/collection/);
    expect(() => subjectFor('t1', 'catalog', 'products', 'updated')).toThrow(/prefix/);
  });
});

describe('buildEnvelope', () => {
  const occurredAt = new Date('2026-01-02T03:04:05.678Z');

  it('has the documented shape with type <collection>.<action>', () => {
    const env = buildEnvelope({
      id: '65a1b2c3d4e5f60718293a4b',
      source: 'catalog',
      collection: 'products',
      action: 'created',
      data: { _id: 'p1', name: 'Chair' },
      occurredAt,
      actor: { user_id: 'u1', user_name: 'Ada' },
      requestId: 'req-1',
    });
    expect(env).toEqual({
      id: '65a1b2c3d4e5f60718293a4b',
      type: 'products.created',
      collection: 'products',
      occurred_at: '2026-01-02T03:04:05.678Z',
      source: 'catalog',
      actor: { user_id: 'u1', user_name: 'Ada' },
      data: { _id: 'p1', name: 'Chair' },
      schema_version: 1,
      request_id: 'req-1',
    });
  });

  it('uses a null actor for system work, omits a missing request id and drops unknown actor fields', () => {
    const system = buildEnvelope({
      id: 'x',
      source: 'io-jobs',
      collection: 'imports',
      action: 'completed',
      data: null,
      occurredAt,
    });
    expect(system.actor).toBeNull();
    expect('request_id' in system).toBe(false);
    expect(system.type).toBe(eventType('imports', 'completed'));

    const leaky = buildEnvelope({
      id: 'x',
      source: 'catalog',
      collection: 'products',
      action: 'updated',
      data: {},
      occurredAt,
      actor: { user_id: 'u1', secret: 'nope' } as never,
    });
    expect(leaky.actor).toEqual({ user_id: 'u1' });
  });
});

describe('isEnvelope', () => {
  const envelope = buildEnvelope({
    id: '65a1b2c3d4e5f60718293a4b',
    source: 'catalog',
    collection: 'products',
    action: 'updated',
    data: { _id: 'p1' },
    occurredAt: new Date('2026-01-02T03:04:05.678Z'),
  });

  it('accepts what buildEnvelope builds, once through JSON', () => {
    expect(isEnvelope(JSON.parse(JSON.stringify(envelope)))).toBe(true);
  });

  it('refuses what is not one', () => {
    for (const bad of [
      null,
      'text',
      42,
      { id: 'nope', type: 'x' },
      { ...envelope, id: 'not-an-id' },
      { ...envelope, type: undefined },
      { ...envelope, collection: 1 },
      { ...envelope, source: null },
      { ...envelope, occurred_at: 'yesterday' },
    ])
      expect(isEnvelope(bad)).toBe(false);
  });
});
