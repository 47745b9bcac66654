import { createCipheriv, createDecipheriv, randomBytes, type KeyObject } from 'node:crypto';

// A sealed value is a JWE in compact serialization (RFC 7516), with a fresh content key per value
// wrapped by the operator key (RFC 7518: alg A256KW, the AES key wrap of RFC 3394) and the value
// encrypted under it with AES-256-GCM (enc A256GCM). Any JOSE library opens it given the key.

/** `typ` of every sealed value: tells our values from any other JWE, and the format's version. */
export const SEALED_TYP = 'pim-sealed-v1';

/** The protected header of a sealed value (authenticated: it is the AAD of the content encryption). */
export interface SealedHeader {
  alg: 'A256KW';
  enc: 'A256GCM';
  /** The id of the operator key that wrapped the content key. */
  kid: string;
  typ: typeof SEALED_TYP;
}

/** A sealed value split into its five parts, its header parsed. */
export interface ParsedJwe {
  header: SealedHeader;
  /** The header as it was encoded (the AAD). */
  encodedHeader: string;
  encryptedKey: Buffer;
  iv: Buffer;
  ciphertext: Buffer;
  tag: Buffer;
}

// RFC 3394's default initial value; Node's id-aes256-wrap checks it on unwrap.
const KW_IV = Buffer.from('A6A6A6A6A6A6A6A6', 'hex');
const CEK_BYTES = 32;
const WRAPPED_CEK_BYTES = CEK_BYTES + 8;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

const encode = (b: Buffer) => b.toString('base64url');

function decode(part: string): Buffer | null {
  return BASE64URL.test(part) && part.length % 4 !== 1 ? Buffer.from(part, 'base64url') : null;
}

/** Encrypts `plaintext` under a fresh content key wrapped by `kek` (an AES-256 key named `kid`). */
export function sealJwe(kek: KeyObject, kid: string, plaintext: Buffer): string {
  const header: SealedHeader = { alg: 'A256KW', enc: 'A256GCM', kid, typ: SEALED_TYP };
  const encodedHeader = encode(Buffer.from(JSON.stringify(header), 'utf8'));
  const cek = randomBytes(CEK_BYTES);
  try {
    const wrap = createCipheriv('id-aes256-wrap', kek, KW_IV);
    const encryptedKey = Buffer.concat([wrap.update(cek), wrap.final()]);
    const iv = randomBytes(IV_BYTES);
    const gcm = createCipheriv('aes-256-gcm', cek, iv, { authTagLength: TAG_BYTES });
    gcm.setAAD(Buffer.from(encodedHeader, 'ascii'));
    const ciphertext = Buffer.concat([gcm.update(plaintext), gcm.final()]);
    return [encodedHeader, encode(encryptedKey), encode(iv), encode(ciphertext), encode(gcm.getAuthTag())].join('.');
  } finally {
    cek.fill(0);
  }
}

/**
 * The parts of a sealed value, or null when `value` is not one (five base64url parts, a header of
 * our algorithms and `typ`). Nothing is decrypted here.
 */
export function parseJwe(value: string): ParsedJwe | null {
  const parts = value.split('.');
  if (parts.length !== 5) return null;
  const [h, k, i, c, t] = parts.map(decode);
  if (!h || !k || !i || !c || !t) return null;
  let header: Partial<SealedHeader> & Record<string, unknown>;
  try {
    header = JSON.parse(h.toString('utf8')) as typeof header;
  } catch {
    return null;
  }
  if (
    typeof header !== 'object' ||
    header === null ||
    header.alg !== 'A256KW' ||
    header.enc !== 'A256GCM' ||
    header.typ !== SEALED_TYP ||
    typeof header.kid !== 'string' ||
    // Nothing we would have to understand (RFC 7516 §4.1.13) and no compression.
    'crit' in header ||
    'zip' in header
  ) {
    return null;
  }
  if (k.length !== WRAPPED_CEK_BYTES || i.length !== IV_BYTES || t.length !== TAG_BYTES) return null;
  return {
    header: header as SealedHeader,
    encodedHeader: parts[0],
    encryptedKey: k,
    iv: i,
    ciphertext: c,
    tag: t,
  };
}

/**
 * The plaintext of a parsed value, unwrapping its content key with `kek`. Throws when the key is
 * not the one that sealed it or any part was altered (the key wrap's integrity check, then GCM's tag).
 */
export function openJwe(kek: KeyObject, jwe: ParsedJwe): Buffer {
  const unwrap = createDecipheriv('id-aes256-wrap', kek, KW_IV);
  const cek = Buffer.concat([unwrap.update(jwe.encryptedKey), unwrap.final()]);
  try {
    const gcm = createDecipheriv('aes-256-gcm', cek, jwe.iv, { authTagLength: TAG_BYTES });
    gcm.setAAD(Buffer.from(jwe.encodedHeader, 'ascii'));
    gcm.setAuthTag(jwe.tag);
    return Buffer.concat([gcm.update(jwe.ciphertext), gcm.final()]);
  } finally {
    cek.fill(0);
  }
}
