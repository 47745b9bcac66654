import type { ChannelEndpoint } from '@pim/resources';

/** What a header value shows back: its last four characters after a mask (all masked when short). */
export function maskValue(value: string): string {
  return value.length >= 12 ? `****${value.slice(-4)}` : '****';
}

/** The endpoint as answers show it: header values masked. */
export function maskEndpoint(endpoint: ChannelEndpoint): ChannelEndpoint {
  return { ...endpoint, headers: endpoint.headers.map((h) => ({ key: h.key, value: maskValue(h.value) })) };
}

/**
 * The endpoint to store from a written one: a header value sent back exactly as it was shown
 * (masked) keeps the stored value of that header, so a caller who reads a channel and writes it
 * back does not replace its credentials with their masks.
 */
export function keepMaskedHeaders(written: ChannelEndpoint, stored: ChannelEndpoint | null): ChannelEndpoint {
  if (!stored) return written;
  const before = new Map(stored.headers.map((h) => [h.key.toLowerCase(), h.value]));
  return {
    ...written,
    headers: written.headers.map((h) => {
      const old = before.get(h.key.toLowerCase());
      return old !== undefined && h.value === maskValue(old) ? { key: h.key, value: old } : h;
    }),
  };
}
