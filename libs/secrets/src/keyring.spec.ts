import { createCipheriv, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { CompactEncrypt, compactDecrypt, decodeProtectedHeader } from 'jose';
import {
  BUILT_IN_KEY_ID,
  Keyring,
  SEALED_TYP,
  UnsealError,
  builtInDevelopmentKeyring,
  isSealed,
  newSecretsKey,
  parseSecretsKeys,
  sealedKeyId,
} from './index';

const key = () => randomBytes(32);
const ring = (...ids: string[]) => new Keyring(ids.map((id) => ({ id, key: keys[id] })));
const keys: Record<string, Buffer> = { k1: key(), k2: key(), k3: key() };
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

/** `value` with one character of part `index` (0 header … 4 tag) changed. */
function alter(value: string, index: number): string {
  const parts = value.split('.');
  const p = parts[index];
  const at = Math.floor(p.length / 2);
  parts[index] = p.slice(0, at) + (p[at] === 'A' ? 'B' : 'A') + p.slice(at + 1);
  return parts.join('.');
}

describe('sealing (JWE compact, A256KW + A256GCM)', () => {
  it('opens what it sealed, in any script and of any length, empty included', () => {
    const k = ring('k1');
    for (const text of [SECRET, 'Bearer s3cret-token', 'ção 秘密 🔑', '', 'x'.repeat(10_000)]) {
      const sealed = k.seal(text);
      expect(sealed).not.toContain(text || '\u0000');
      expect(k.open(sealed)).toBe(text);
    }
  });

  it('seals each value under a fresh content key and IV: the same text never seals the same twice', () => {
    const k = ring('k1');
    const a = k.seal(SECRET).split('.');
    const b = k.seal(SECRET).split('.');
    expect(a[0]).toBe(b[0]); // the header names the same key
    for (const i of [1, 2, 3, 4]) expect(a[i]).not.toBe(b[i]);
  });

  it('is a self-describing JWE: five base64url parts, the header naming algorithms, key id and format version', () => {
    const sealed = ring('k1').seal(SECRET);
    expect(sealed).toMatch(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]*){4}$/);
    expect(decodeProtectedHeader(sealed)).toEqual({ alg: 'A256KW', enc: 'A256GCM', kid: 'k1', typ: SEALED_TYP });
    expect(sealedKeyId(sealed)).toBe('k1');
    expect(isSealed(sealed)).toBe(true);
    expect(isSealed(SECRET)).toBe(false);
    expect(sealedKeyId('Bearer token')).toBeNull();
  });

  it('is standard JWE: an independent implementation (jose) opens ours, and ours opens its', async () => {
    const k = ring('k1');
    const ours = k.seal(SECRET);
    const opened = await compactDecrypt(ours, new Uint8Array(keys.k1));
    expect(new TextDecoder().decode(opened.plaintext)).toBe(SECRET);
    expect(opened.protectedHeader.kid).toBe('k1');

    const theirs = await new CompactEncrypt(new TextEncoder().encode('from jose'))
      .setProtectedHeader({ alg: 'A256KW', enc: 'A256GCM', kid: 'k1', typ: SEALED_TYP })
      .encrypt(new Uint8Array(keys.k1));
    expect(k.open(theirs)).toBe('from jose');
  });

  it('wraps content keys with AES key wrap as RFC 3394 specifies (test vector 4.6)', () => {
    const kek = Buffer.from('000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F', 'hex');
    const data = Buffer.from('00112233445566778899AABBCCDDEEFF000102030405060708090A0B0C0D0E0F', 'hex');
    const wrap = createCipheriv('id-aes256-wrap', kek, Buffer.from('A6A6A6A6A6A6A6A6', 'hex'));
    expect(
      Buffer.concat([wrap.update(data), wrap.final()])
        .toString('hex')
        .toUpperCase(),
    ).toBe('28C9F404C4B810F4CBCCB35CFB87F8263F5786E2D80ED326CBC7F0E71A99F43BFB988B9B7A02DD21');
  });
});

describe('opening', () => {
  it('detects any change to the encrypted key, IV, ciphertext or tag', () => {
    const k = ring('k1');
    const sealed = k.seal(SECRET);
    for (const part of [1, 2, 3, 4]) {
      const changed = alter(sealed, part);
      expect(changed).not.toBe(sealed);
      expect(() => k.open(changed)).toThrow(expect.objectContaining({ name: 'UnsealError', reason: 'tampered' }));
    }
  });

  it('detects a changed header: another listed key id named, or the header bytes altered', () => {
    const k = ring('k1', 'k2');
    const sealed = k.seal(SECRET);
    const [, ...rest] = sealed.split('.');
    const header = Buffer.from(JSON.stringify({ alg: 'A256KW', enc: 'A256GCM', kid: 'k2', typ: SEALED_TYP })).toString(
      'base64url',
    );
    expect(() => k.open([header, ...rest].join('.'))).toThrow(UnsealError);
    // The same header, encoded with another (equivalent) key order: the AAD differs, so GCM refuses it.
    const reordered = Buffer.from(
      JSON.stringify({ kid: 'k1', alg: 'A256KW', enc: 'A256GCM', typ: SEALED_TYP }),
    ).toString('base64url');
    expect(() => k.open([reordered, ...rest].join('.'))).toThrow(/was altered/);
  });

  it('refuses a value sealed with another key under the same id (wrong key), and names an unknown id', () => {
    const sealed = ring('k1').seal(SECRET);
    const impostor = new Keyring([{ id: 'k1', key: key() }]);
    expect(() => impostor.open(sealed)).toThrow(
      expect.objectContaining({ name: 'UnsealError', reason: 'tampered', keyId: 'k1' }),
    );
    expect(() => ring('k2').open(sealed)).toThrow(
      expect.objectContaining({
        reason: 'unknown_key',
        keyId: 'k1',
        message: expect.stringContaining('PIM_SECRETS_KEYS'),
      }),
    );
  });

  it('takes a stored value that is not sealed as written before sealing existed (reveal), but open() refuses it', () => {
    const k = ring('k1');
    expect(k.reveal(SECRET)).toBe(SECRET);
    expect(k.reveal(k.seal(SECRET))).toBe(SECRET);
    expect(() => k.open(SECRET)).toThrow(/not a sealed secret/);
  });
});

describe('rotation', () => {
  it('a new current key seals, the old one still opens, and re-sealing moves values to the current key', () => {
    const before = ring('k1');
    const old = before.seal(SECRET);
    const after = ring('k2', 'k1');
    expect(after.currentKeyId).toBe('k2');
    expect(after.open(old)).toBe(SECRET);
    expect(after.needsReseal(old)).toBe(true);
    const moved = after.reseal(old);
    expect(sealedKeyId(moved)).toBe('k2');
    expect(after.open(moved)).toBe(SECRET);
    expect(after.needsReseal(moved)).toBe(false);
    expect(after.reseal(moved)).toBe(moved);
    // Values in clear are sealed by a re-seal too.
    expect(after.needsReseal(SECRET)).toBe(true);
    expect(after.open(after.reseal(SECRET))).toBe(SECRET);
  });

  it('needs the new key listed as decrypt-only first: replicas not yet given it cannot open its values', () => {
    const sealedWithNew = ring('k2', 'k1').seal(SECRET);
    // A replica still on the old settings (k1 only) cannot read it…
    expect(() => ring('k1').open(sealedWithNew)).toThrow(UnsealError);
    // …one rolled out with k2 decrypt-only (step 1) can, while it still seals with k1.
    const step1 = ring('k1', 'k2');
    expect(step1.open(sealedWithNew)).toBe(SECRET);
    expect(sealedKeyId(step1.seal(SECRET))).toBe('k1');
  });

  it('after the old key is dropped, values still under it are named as such', () => {
    const old = ring('k1').seal(SECRET);
    expect(() => ring('k2').reveal(old)).toThrow(/sealed with operator key 'k1'/);
  });
});

describe('PIM_SECRETS_KEYS', () => {
  const b64 = (b: Buffer) => b.toString('base64');

  it('lists id:base64key entries, the current key first; base64url and spaces are accepted', () => {
    const k = parseSecretsKeys(` k2:${b64(keys.k2)} , k1:${keys.k1.toString('base64url')},`);
    expect(k.currentKeyId).toBe('k2');
    expect(k.keyIds).toEqual(['k2', 'k1']);
    expect(k.open(ring('k1').seal(SECRET))).toBe(SECRET);
  });

  it('names the bad entry and never repeats a key', () => {
    const short = b64(randomBytes(16));
    const cases: [string, RegExp][] = [
      ['', /lists no key/],
      [b64(keys.k1), /entry 1 is not id:base64key/],
      [`k1:${b64(keys.k1)},bad id:${b64(keys.k2)}`, /entry 2 is not id:base64key/],
      [`k1:${short}`, /entry 1 \('k1'\): the key is 16 bytes, not 32/],
      [`k1:not*base64`, /entry 1 \('k1'\): the key is not base64/],
      [`k1:${b64(keys.k1)},k1:${b64(keys.k2)}`, /'k1' is listed twice/],
      [`${BUILT_IN_KEY_ID}:${b64(keys.k1)}`, /reserved/],
    ];
    for (const [text, message] of cases) {
      let caught: Error | undefined;
      try {
        parseSecretsKeys(text);
      } catch (err) {
        caught = err as Error;
      }
      expect(caught?.message).toMatch(message);
      expect(caught?.message).not.toContain(b64(keys.k1));
      expect(caught?.message).not.toContain(short);
    }
  });

  it('newSecretsKey makes an entry parseSecretsKeys takes', () => {
    const entry = newSecretsKey('2026-11');
    expect(entry).toMatch(/^2026-11:[A-Za-z0-9+/]{43}=$/);
    expect(parseSecretsKeys(entry).currentKeyId).toBe('2026-11');
    expect(() => newSecretsKey('no spaces')).toThrow();
  });

  it('a keyring never prints its keys (JSON, inspect)', () => {
    const k = parseSecretsKeys(`k1:${b64(keys.k1)}`);
    const shown = `${JSON.stringify({ config: k })} ${inspect(k)} ${inspect({ k }, { showHidden: true, depth: 5 })}`;
    expect(shown).toContain('k1');
    expect(shown).not.toContain(b64(keys.k1));
    expect(shown).not.toContain(keys.k1.toString('hex'));
  });

  it('the built-in development key is marked as such', () => {
    const dev = builtInDevelopmentKeyring();
    expect(dev.builtIn).toBe(true);
    expect(dev.currentKeyId).toBe(BUILT_IN_KEY_ID);
    expect(builtInDevelopmentKeyring().open(dev.seal(SECRET))).toBe(SECRET);
  });
});
