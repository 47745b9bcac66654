import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** `pim_<prefix>_<secret>`: the prefix finds the key, the secret proves it. */
const TOKEN = /^pim_([a-z0-9]{12})_([A-Za-z0-9_-]{43})$/;

/** A parsed API key token. */
export interface ParsedToken {
  prefix: string;
  secret: string;
}

/** A new random token (12-character prefix, 256-bit secret). */
export function newToken(prefix = newPrefix()): { token: string; prefix: string; hash: string } {
  const secret = randomBytes(32).toString('base64url');
  return { token: `pim_${prefix}_${secret}`, prefix, hash: hashSecret(secret) };
}

/** A new 12-character lowercase alphanumeric prefix. */
export function newPrefix(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(12), (b) => alphabet[b % alphabet.length]).join('');
}

/** The parts of a token, or undefined when it does not have the shape of one. */
export function parseToken(token: string): ParsedToken | undefined {
  const m = TOKEN.exec(token);
  return m ? { prefix: m[1], secret: m[2] } : undefined;
}

/**
 * SHA-256 of a secret. The secrets are 256 random bits, so a fast hash is as strong as a slow
 * one here (nothing to brute-force) and keeps the per-request check cheap.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Constant-time comparison of a presented secret with a stored hash. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const a = Buffer.from(hashSecret(secret), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
