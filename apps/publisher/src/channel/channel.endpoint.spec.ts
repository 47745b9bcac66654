import { keepMaskedHeaders, maskEndpoint, maskValue } from './channel.endpoint';

const endpoint = (headers: { key: string; value: string }[]) => ({
  url: 'https://shop.example.com/listings',
  method: 'POST' as const,
  headers,
  timeout_ms: 10_000,
});

describe('channel endpoint credentials', () => {
  it('shows only the last four characters of a long value, nothing of a short one', () => {
    expect(maskValue('Bearer abcdefghijkl')).toBe('****ijkl');
    expect(maskValue('short')).toBe('****');
    expect(maskEndpoint(endpoint([{ key: 'Authorization', value: 'Bearer abcdefghijkl' }])).headers).toEqual([
      { key: 'Authorization', value: '****ijkl' },
    ]);
  });

  it('keeps the stored value when the mask is sent back, and takes a new value as written', () => {
    const stored = endpoint([
      { key: 'Authorization', value: 'Bearer abcdefghijkl' },
      { key: 'X-Shop', value: 'one' },
    ]);
    const written = endpoint([
      { key: 'authorization', value: '****ijkl' },
      { key: 'X-Shop', value: 'two' },
      { key: 'X-New', value: '****' },
    ]);
    expect(keepMaskedHeaders(written, stored).headers).toEqual([
      { key: 'authorization', value: 'Bearer abcdefghijkl' },
      { key: 'X-Shop', value: 'two' },
      { key: 'X-New', value: '****' },
    ]);
    expect(keepMaskedHeaders(written, null)).toBe(written);
  });
});
