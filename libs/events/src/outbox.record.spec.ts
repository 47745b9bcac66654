import { buildEnvelope } from './event.envelope';
import { envelopeJsonWith } from './outbox.record';

describe('envelopeJsonWith', () => {
  it('gives the same JSON as serializing the envelope with its data, from data already serialized', () => {
    const data = { _id: 'p1', name: { pt: 'Café "forte"' }, note: '\u0000data:x', list: [1, { a: null }] };
    const envelope = buildEnvelope({
      id: '0123456789abcdef01234567',
      source: 'catalog',
      collection: 'products',
      action: 'updated',
      data,
      occurredAt: new Date('2026-01-02T03:04:05.006Z'),
      requestId: 'r-1',
    });
    const text = envelopeJsonWith(envelope, JSON.stringify(data));
    expect(text).toBe(JSON.stringify(envelope));
  });
});
