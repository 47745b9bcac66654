import { randomBytes } from 'node:crypto';
import { ConfigError, baseSchema, loadConfig } from '@pim/config';
import { BUILT_IN_KEY_ID, requireOperatorKeys, secretsKeysSetting } from './index';

const schema = baseSchema.extend({ PIM_SECRETS_KEYS: secretsKeysSetting() });
const entry = `k1:${randomBytes(32).toString('base64')}`;

describe('PIM_SECRETS_KEYS in an app config', () => {
  it('parses into a keyring; unset is left to requireOperatorKeys', () => {
    expect(loadConfig(schema, { PIM_SECRETS_KEYS: entry }).PIM_SECRETS_KEYS?.currentKeyId).toBe('k1');
    expect(loadConfig(schema, {}).PIM_SECRETS_KEYS).toBeUndefined();
    expect(loadConfig(schema, { PIM_SECRETS_KEYS: '  ' }).PIM_SECRETS_KEYS).toBeUndefined();
  });

  it('names the variable in a bad value’s error without repeating the value', () => {
    const bad = `k1:${randomBytes(16).toString('base64')}`;
    let caught: unknown;
    try {
      loadConfig(schema, { PIM_SECRETS_KEYS: bad });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).message).toContain('PIM_SECRETS_KEYS');
    expect((caught as ConfigError).message).toContain('16 bytes, not 32');
    expect((caught as ConfigError).message).not.toContain(bad.slice(3));
  });

  it('refuses production without a key, naming the variable and how to make one', () => {
    const config = loadConfig(schema, { NODE_ENV: 'production' });
    expect(() => requireOperatorKeys(config)).toThrow(ConfigError);
    expect(() => requireOperatorKeys(config)).toThrow(/PIM_SECRETS_KEYS: is required in production.*randomBytes\(32\)/);
  });

  it('uses the keys given, in production or not', () => {
    for (const NODE_ENV of ['production', 'development'])
      expect(
        requireOperatorKeys(loadConfig(schema, { NODE_ENV, PIM_SECRETS_KEYS: entry })).PIM_SECRETS_KEYS.currentKeyId,
      ).toBe('k1');
  });

  it('falls back to the built-in development key outside production', () => {
    for (const NODE_ENV of ['development', 'test']) {
      const keys = requireOperatorKeys(loadConfig(schema, { NODE_ENV })).PIM_SECRETS_KEYS;
      expect(keys.builtIn).toBe(true);
      expect(keys.currentKeyId).toBe(BUILT_IN_KEY_ID);
    }
  });
});
