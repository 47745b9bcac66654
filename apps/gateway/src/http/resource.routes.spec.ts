import { withRawData } from './resource.routes';

describe('withRawData', () => {
  it('puts an already serialized array where data was, keeping every other field, even one that looks like the mark', () => {
    const envelope = {
      page: 1,
      total: 2,
      nextUrl: '/api/v1/products?_search=%00data%3A',
      filters: { code: '"data"' },
      data: [] as unknown[],
    };
    const items = [
      { _id: 'a', name: { pt: 'Café' } },
      { _id: 'b', note: '\u0000data:' },
    ];
    const out = withRawData(envelope, Buffer.from(JSON.stringify(items)));
    expect(JSON.parse(out.toString('utf8'))).toEqual({ ...envelope, data: items });
  });

  it('keeps an empty page an empty array', () => {
    expect(
      JSON.parse(withRawData({ total: 0, data: [] } as { data: unknown[] }, Buffer.from('[]')).toString('utf8')),
    ).toEqual({ total: 0, data: [] });
  });
});
