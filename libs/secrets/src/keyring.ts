import { createHash, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { inspect } from 'node:util';
import { openJwe, parseJwe, sealJwe } from './jwe';

/** The variable that holds the operator keys. */
export const SECRETS_KEYS_VARIABLE = 'PIM_SECRETS_KEYS';

/** An operator key id: what sealed values name their key by. */
export const KEY_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The id of the built-in development key (never accepted in PIM_SECRETS_KEYS). */
export const BUILT_IN_KEY_ID = 'built-in-development';

const KEY_BYTES = 32;
// Opened values kept in memory (sealed text → clear text), so a hot path opens each value once.
const OPENED_MAX = 10_000;

/** An operator key: its id and its 32 bytes. */
export interface OperatorKey {
  id: string;
  key: Buffer;
}

/** Why a stored value could not be opened. */
export type UnsealReason = 'unknown_key' | 'tampered';

/** A sealed value that cannot be opened with this keyring: its key is not listed, or the value (or the key under its id) changed. */
export class UnsealError extends Error {
  override readonly name = 'UnsealError';
  constructor(
    readonly reason: UnsealReason,
    readonly keyId: string,
  ) {
    super(
      reason === 'unknown_key'
        ? `the value is sealed with operator key '${keyId}', which ${SECRETS_KEYS_VARIABLE} does not list: add that key back (after the current one) until every value is re-sealed`
        : `the value does not open with operator key '${keyId}': it was altered, or ${SECRETS_KEYS_VARIABLE} holds another key under that id`,
    );
  }
}

/**
 * The operator keys of a process: the first seals (the current key), every one opens (the others
 * are decrypt-only, kept while values sealed with them remain). Values are sealed as JWE (jwe.ts);
 * a stored value that is not one is taken as written before sealing existed (clear text).
 */
export class Keyring {
  readonly #keys: Map<string, KeyObject>;
  readonly #current: string;
  readonly #opened = new Map<string, string>();
  /** Whether this is the built-in development key (PIM_SECRETS_KEYS unset outside production). */
  readonly builtIn: boolean;

  constructor(keys: OperatorKey[], opts: { builtIn?: boolean } = {}) {
    if (keys.length === 0) throw new Error('a keyring needs at least one key');
    this.#keys = new Map();
    for (const { id, key } of keys) {
      if (!KEY_ID.test(id)) throw new Error(`'${id}' is not a key id (letters, digits, '.', '_', '-'; up to 64)`);
      if (this.#keys.has(id)) throw new Error(`key id '${id}' is listed twice`);
      if (key.length !== KEY_BYTES) throw new Error(`key '${id}' is ${key.length} bytes, not ${KEY_BYTES}`);
      this.#keys.set(id, createSecretKey(key));
    }
    this.#current = keys[0].id;
    this.builtIn = opts.builtIn === true;
  }

  /** The id of the key new values are sealed with. */
  get currentKeyId(): string {
    return this.#current;
  }

  /** Every key id, the current one first. */
  get keyIds(): string[] {
    return [...this.#keys.keys()];
  }

  /** Seals a value with the current key (a fresh content key and IV each time). */
  seal(plaintext: string): string {
    return sealJwe(this.#keys.get(this.#current)!, this.#current, Buffer.from(plaintext, 'utf8'));
  }

  /** Opens a sealed value; a value that is not sealed, or does not open, is an error. */
  open(sealed: string): string {
    const known = this.#opened.get(sealed);
    if (known !== undefined) return known;
    const jwe = parseJwe(sealed);
    if (!jwe) throw new Error('the value is not a sealed secret');
    const key = this.#keys.get(jwe.header.kid);
    if (!key) throw new UnsealError('unknown_key', jwe.header.kid);
    let clear: string;
    try {
      clear = openJwe(key, jwe).toString('utf8');
    } catch {
      throw new UnsealError('tampered', jwe.header.kid);
    }
    if (this.#opened.size >= OPENED_MAX) this.#opened.clear();
    this.#opened.set(sealed, clear);
    return clear;
  }

  /**
   * A stored value in clear: a sealed one opened, any other returned as it is (written before
   * sealing existed, or by a replica of an older version during a roll-out).
   */
  reveal(stored: string): string {
    return isSealed(stored) ? this.open(stored) : stored;
  }

  /** Whether a stored value should be sealed again: in clear, or sealed with another key than the current one. */
  needsReseal(stored: string): boolean {
    return sealedKeyId(stored) !== this.#current;
  }

  /** A stored value sealed with the current key (the same text when it already is). */
  reseal(stored: string): string {
    return this.needsReseal(stored) ? this.seal(this.reveal(stored)) : stored;
  }

  // Never print key material (a config object logged whole, a failing test's diff).
  toJSON(): { current: string; keys: string[] } {
    return { current: this.#current, keys: this.keyIds };
  }

  [inspect.custom](): string {
    return `Keyring { current: '${this.#current}', keys: [${this.keyIds.map((k) => `'${k}'`).join(', ')}] }`;
  }
}

/** Whether a stored value is sealed (a JWE of our format), whatever its key. */
export function isSealed(stored: string): boolean {
  return parseJwe(stored) !== null;
}

/** The id of the key a stored value is sealed with, or null when it is in clear. */
export function sealedKeyId(stored: string): string | null {
  return parseJwe(stored)?.header.kid ?? null;
}

/**
 * The operator keys written as PIM_SECRETS_KEYS: `id:base64key` entries separated by commas, the
 * current key first; each key 32 random bytes in base64 (or base64url). Errors name the entry,
 * never a key.
 */
export function parseSecretsKeys(text: string): Keyring {
  const entries = text
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e.length > 0);
  if (entries.length === 0) throw new Error('lists no key');
  const keys = entries.map((entry, i): OperatorKey => {
    const at = entry.indexOf(':');
    const id = at < 0 ? '' : entry.slice(0, at).trim();
    const encoded = at < 0 ? '' : entry.slice(at + 1).trim();
    const where = `entry ${i + 1}${KEY_ID.test(id) ? ` ('${id}')` : ''}`;
    if (at < 0 || !KEY_ID.test(id))
      throw new Error(`${where} is not id:base64key (an id of letters, digits, '.', '_', '-')`);
    if (id === BUILT_IN_KEY_ID) throw new Error(`${where}: the id '${BUILT_IN_KEY_ID}' is reserved`);
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(encoded)) throw new Error(`${where}: the key is not base64`);
    const key = Buffer.from(encoded.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (key.length !== KEY_BYTES) throw new Error(`${where}: the key is ${key.length} bytes, not ${KEY_BYTES}`);
    return { id, key };
  });
  const seen = new Set<string>();
  for (const { id } of keys) {
    if (seen.has(id)) throw new Error(`the key id '${id}' is listed twice`);
    seen.add(id);
  }
  return new Keyring(keys);
}

/** A new PIM_SECRETS_KEYS entry: `id:` and 32 random bytes in base64. */
export function newSecretsKey(id: string): string {
  if (!KEY_ID.test(id) || id === BUILT_IN_KEY_ID) throw new Error(`'${id}' is not a usable key id`);
  return `${id}:${randomBytes(KEY_BYTES).toString('base64')}`;
}

/**
 * The built-in development key: public (derived from a fixed text), so it protects nothing. Used
 * only when PIM_SECRETS_KEYS is unset outside production, so a single app run by hand or by a
 * test starts; production refuses instead.
 */
export function builtInDevelopmentKeyring(): Keyring {
  const key = createHash('sha256').update('pim-platform built-in development key; protects nothing').digest();
  return new Keyring([{ id: BUILT_IN_KEY_ID, key }], { builtIn: true });
}
