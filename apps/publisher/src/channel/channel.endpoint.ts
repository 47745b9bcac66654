import type { ChannelEndpoint } from '@pim/resources';
import type { Keyring } from '@pim/secrets';

/** What a header value shows back: its last four characters after a mask (all masked when short). */
export function maskValue(value: string): string {
  return value.length >= 12 ? `****${value.slice(-4)}` : '****';
}

/** The mask of a stored (sealed) header value: of its text; all masked when it cannot be opened. */
function storedMask(secrets: Keyring, stored: string): string {
  try {
    return maskValue(secrets.reveal(stored));
  } catch {
    return '****';
  }
}

/** The endpoint as answers show it: header values (stored sealed) masked. */
export function maskEndpoint(endpoint: ChannelEndpoint, secrets: Keyring): ChannelEndpoint {
  return { ...endpoint, headers: endpoint.headers.map((h) => ({ key: h.key, value: storedMask(secrets, h.value) })) };
}

/**
 * The endpoint to store from a written one: every header value sealed with the current operator
 * key. A value sent back exactly as it was shown (masked) keeps the stored value of that header, so
 * a caller who reads a channel and writes it back does not replace its credentials with their masks.
 */
export function sealEndpoint(
  written: ChannelEndpoint,
  stored: ChannelEndpoint | null,
  secrets: Keyring,
): ChannelEndpoint {
  const before = new Map((stored?.headers ?? []).map((h) => [h.key.toLowerCase(), h.value]));
  return {
    ...written,
    headers: written.headers.map((h) => {
      const old = before.get(h.key.toLowerCase());
      if (old !== undefined && h.value === storedMask(secrets, old)) return { key: h.key, value: kept(secrets, old) };
      return { key: h.key, value: secrets.seal(h.value) };
    }),
  };
}

/** A stored value kept: under the current key when it can be opened, else as it is. */
function kept(secrets: Keyring, stored: string): string {
  try {
    return secrets.reseal(stored);
  } catch {
    return stored;
  }
}

/** The endpoint in clear, to send a publication with: every header value opened (UnsealError when one cannot be). */
export function openEndpoint(endpoint: ChannelEndpoint, secrets: Keyring): ChannelEndpoint {
  return { ...endpoint, headers: endpoint.headers.map((h) => ({ key: h.key, value: secrets.reveal(h.value) })) };
}
