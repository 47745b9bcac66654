import { newSecretsKey, parseSecretsKeys, sealedKeyId } from '@pim/secrets';
import { maskEndpoint, maskValue, openEndpoint, sealEndpoint } from './channel.endpoint';

const endpoint = (headers: { key: string; value: string }[]) => ({
  url: 'https://shop.example.com/listings',
  method: 'POST' as const,
  headers,
  timeout_ms: 10_000,
});
const k1 = newSecretsKey('k1');
const secrets = parseSecretsKeys(k1);

describe('channel endpoint credentials', () => {
  it('shows only the last four characters of a long value, nothing of a short one', () => {
    expect(maskValue('Bearer abcdefghijkl')).toBe('****ijkl');
    expect(maskValue('short')).toBe('****');
    const stored = sealEndpoint(endpoint([{ key: 'Authorization', value: 'Bearer abcdefghijkl' }]), null, secrets);
    expect(maskEndpoint(stored, secrets).headers).toEqual([{ key: 'Authorization', value: '****ijkl' }]);
  });

  it('stores every header value sealed with the current key, and opens them to send', () => {
    const written = endpoint([
      { key: 'Authorization', value: 'Bearer abcdefghijkl' },
      { key: 'X-Shop', value: 'one' },
    ]);
    const stored = sealEndpoint(written, null, secrets);
    expect(stored.url).toBe(written.url);
    expect(stored.headers.map((h) => h.key)).toEqual(['Authorization', 'X-Shop']);
    expect(stored.headers.map((h) => sealedKeyId(h.value))).toEqual(['k1', 'k1']);
    expect(JSON.stringify(stored)).not.toContain('abcdefghijkl');
    expect(openEndpoint(stored, secrets)).toEqual(written);
  });

  it('keeps the stored value when the mask is sent back, and takes a new value as written', () => {
    const stored = sealEndpoint(
      endpoint([
        { key: 'Authorization', value: 'Bearer abcdefghijkl' },
        { key: 'X-Shop', value: 'one' },
      ]),
      null,
      secrets,
    );
    const written = endpoint([
      { key: 'authorization', value: '****ijkl' },
      { key: 'X-Shop', value: 'two' },
      { key: 'X-New', value: '****' },
    ]);
    const next = sealEndpoint(written, stored, secrets);
    expect(next.headers[0].value).toBe(stored.headers[0].value);
    expect(openEndpoint(next, secrets).headers).toEqual([
      { key: 'authorization', value: 'Bearer abcdefghijkl' },
      { key: 'X-Shop', value: 'two' },
      { key: 'X-New', value: '****' },
    ]);
  });

  it('re-seals a kept value under the current key, and reads values stored in clear before sealing', () => {
    const old = sealEndpoint(endpoint([{ key: 'Authorization', value: 'Bearer abcdefghijkl' }]), null, secrets);
    const rotated = parseSecretsKeys(`${newSecretsKey('k2')},${k1}`);
    const kept = sealEndpoint(endpoint([{ key: 'Authorization', value: '****ijkl' }]), old, rotated);
    expect(sealedKeyId(kept.headers[0].value)).toBe('k2');
    expect(openEndpoint(kept, rotated).headers[0].value).toBe('Bearer abcdefghijkl');

    const clear = endpoint([{ key: 'Authorization', value: 'Bearer abcdefghijkl' }]);
    expect(maskEndpoint(clear, secrets).headers[0].value).toBe('****ijkl');
    expect(openEndpoint(clear, secrets)).toEqual(clear);
  });

  it('shows a value it cannot open fully masked, keeps it when that mask comes back, and refuses to send it', () => {
    const stored = sealEndpoint(endpoint([{ key: 'Authorization', value: 'Bearer abcdefghijkl' }]), null, secrets);
    const without = parseSecretsKeys(newSecretsKey('k2'));
    expect(maskEndpoint(stored, without).headers[0].value).toBe('****');
    const kept = sealEndpoint(endpoint([{ key: 'Authorization', value: '****' }]), stored, without);
    expect(kept.headers[0].value).toBe(stored.headers[0].value);
    expect(() => openEndpoint(stored, without)).toThrow(/operator key 'k1'/);
  });
});
