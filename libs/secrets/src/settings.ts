import { z } from 'zod';
import { ConfigError, sensitive } from '@pim/config';
import { SECRETS_KEYS_VARIABLE, builtInDevelopmentKeyring, parseSecretsKeys, type Keyring } from './keyring';

/** How an operator makes a key, as the refusal to start says it. */
export const MAKE_A_KEY = `node -e "console.log('k1:'+require('crypto').randomBytes(32).toString('base64'))"`;

/**
 * PIM_SECRETS_KEYS as an app's config schema reads it: `id:base64key,…`, the current key first,
 * parsed into a Keyring; unset is undefined (see `requireOperatorKeys`). Its errors never repeat
 * the value.
 */
export const secretsKeysSetting = () =>
  sensitive(
    z
      .string()
      .optional()
      .transform((v, ctx): Keyring | undefined => {
        if (v === undefined || v.trim() === '') return undefined;
        try {
          return parseSecretsKeys(v);
        } catch (err) {
          ctx.addIssue({ code: 'custom', message: `${(err as Error).message} (the keys: id:base64key,…)` });
          return z.NEVER;
        }
      }),
  );

/** A config whose operator keys are settled. */
export type WithOperatorKeys<C> = Omit<C, typeof SECRETS_KEYS_VARIABLE> & { [SECRETS_KEYS_VARIABLE]: Keyring };

/**
 * The config of an app that seals secrets, its keys settled: PIM_SECRETS_KEYS when set; unset, a
 * ConfigError in production (NODE_ENV=production) naming the variable and how to make a key, and
 * the built-in development key elsewhere (`Keyring.builtIn`: the app says so at start).
 */
export function requireOperatorKeys<C extends { NODE_ENV: string; PIM_SECRETS_KEYS?: Keyring }>(
  config: C,
): WithOperatorKeys<C> {
  if (config.PIM_SECRETS_KEYS) return config as WithOperatorKeys<C>;
  if (config.NODE_ENV === 'production') {
    throw new ConfigError([
      {
        variable: SECRETS_KEYS_VARIABLE,
        message:
          `is required in production: the operator key that seals webhook secrets and channel credentials at rest. ` +
          `Make one with ${MAKE_A_KEY} and set ${SECRETS_KEYS_VARIABLE} to what it prints (id:base64key); ` +
          `keep it: values sealed with it cannot be read without it (docs/deploy.md)`,
      },
    ]);
  }
  return { ...config, [SECRETS_KEYS_VARIABLE]: builtInDevelopmentKeyring() } as WithOperatorKeys<C>;
}
