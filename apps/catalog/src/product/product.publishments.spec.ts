import { mergePublishment, type PublicationFields } from './product.publishments';

const fresh = (): PublicationFields => ({
  published: false,
  last_published_at: null,
  last_publishment_id: null,
  publishments: [],
});

describe('mergePublishment', () => {
  it('lists a channel once the product is published there, and names the latest success', () => {
    const p = fresh();
    expect(
      mergePublishment(p, {
        channel: 'shop',
        status: 'PUBLISHED',
        at: '2026-11-01T10:00:00.000Z',
        publication_id: 'a',
      }),
    ).toBe(true);
    expect(p).toEqual({
      published: true,
      last_published_at: new Date('2026-11-01T10:00:00.000Z'),
      last_publishment_id: 'a',
      publishments: [{ channel: 'shop', published_at: '2026-11-01T10:00:00.000Z', status: 'PUBLISHED' }],
    });
  });

  it('adds nothing for a failure on a channel that never listed the product', () => {
    const p = fresh();
    expect(
      mergePublishment(p, { channel: 'shop', status: 'FAILED', at: '2026-11-01T10:00:00.000Z', publication_id: 'a' }),
    ).toBe(false);
    expect(p).toEqual(fresh());
  });

  it('marks a later failure on the entry but keeps the product listed and its last success', () => {
    const p = fresh();
    mergePublishment(p, { channel: 'shop', status: 'PUBLISHED', at: '2026-11-01T10:00:00.000Z', publication_id: 'a' });
    expect(
      mergePublishment(p, { channel: 'shop', status: 'FAILED', at: '2026-11-02T10:00:00.000Z', publication_id: 'b' }),
    ).toBe(true);
    expect(p.publishments).toEqual([{ channel: 'shop', published_at: '2026-11-01T10:00:00.000Z', status: 'FAILED' }]);
    expect(p.published).toBe(true);
    expect(p.last_publishment_id).toBe('a');
  });

  it('leaves out an outcome older than the one the channel shows', () => {
    const p = fresh();
    mergePublishment(p, { channel: 'shop', status: 'PUBLISHED', at: '2026-11-02T10:00:00.000Z', publication_id: 'b' });
    expect(
      mergePublishment(p, {
        channel: 'shop',
        status: 'PUBLISHED',
        at: '2026-11-01T10:00:00.000Z',
        publication_id: 'a',
      }),
    ).toBe(false);
    expect(
      mergePublishment(p, { channel: 'shop', status: 'FAILED', at: '2026-11-01T10:00:00.000Z', publication_id: 'a' }),
    ).toBe(false);
    expect(p.last_publishment_id).toBe('b');
  });

  it('keeps one entry per channel', () => {
    const p = fresh();
    mergePublishment(p, { channel: 'shop', status: 'PUBLISHED', at: '2026-11-01T10:00:00.000Z', publication_id: 'a' });
    mergePublishment(p, {
      channel: 'market',
      status: 'PUBLISHED',
      at: '2026-11-03T10:00:00.000Z',
      publication_id: 'c',
    });
    mergePublishment(p, { channel: 'shop', status: 'PUBLISHED', at: '2026-11-02T10:00:00.000Z', publication_id: 'b' });
    expect(p.publishments.map((e) => [e.channel, e.published_at])).toEqual([
      ['shop', '2026-11-02T10:00:00.000Z'],
      ['market', '2026-11-03T10:00:00.000Z'],
    ]);
    expect(p.last_publishment_id).toBe('c');
  });
});
