import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

const PREFIX = 'whsec_';

/** The HMAC key of a `whsec_<base64>` secret (Standard Webhooks: the base64 part, decoded). */
export function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

// Decoding a secret into a key object costs more than the HMAC of a small body; secrets are few.
const keys = new Map<string, KeyObject>();
const MAX_KEYS = 1_000;

function keyFor(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= MAX_KEYS) keys.clear();
    key = createSecretKey(secretKey(secret));
    keys.set(secret, key);
  }
  return key;
}

/** One Standard Webhooks signature: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. */
export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', keyFor(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The `webhook-signature` header: one signature per live secret, space-separated (rotation overlap). */
export function signatureHeader(secrets: string[], id: string, timestampSeconds: number, body: string): string {
  return secrets.map((s) => sign(s, id, timestampSeconds, body)).join(' ');
}
