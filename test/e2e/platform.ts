import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPimClient, type PimClient, type Schema } from '@pim/api-client';
import { createTestDatabase, createTestStream, type TestDatabase, type TestStream } from '@pim/testing';
import { startPlatform, type RunningPlatform, type StartPlatformOptions } from '../../tools/start';
import { newSecretsKey } from '@pim/secrets';
import { newToken } from '../../apps/gateway/src/auth/api-key.token';

/** The whole platform as `npm start` runs it, on a fresh database and its own stream, for one test file. */
export interface E2E {
  platform: RunningPlatform;
  db: TestDatabase;
  stream: TestStream;
  /** Lines the apps printed (for diagnosing a failure). */
  logs: string[];
  /** The platform's bootstrap admin key. */
  adminKey: string;
  /** The operator keys the apps seal secrets with (PIM_SECRETS_KEYS: a fresh key `e2e`, unless `env` gives others). */
  secretsKeys: string;
  /** The typed API client (generated from the OpenAPI document) with the admin key. */
  client: PimClient;
  /** A typed API client with another key, or with none. */
  clientWith(apiKey?: string): PimClient;
  /** A raw HTTP call (for what the typed client cannot send: malformed JSON, wrong types, other content types), with the admin key unless `authorization` is given ('' sends none). */
  api(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }>;
  /** Creates a key with these scopes (and user) through the API and returns its token. */
  newKey(scopes: string[], user?: { user_id?: string; user_name?: string }): Promise<string>;
  close(): Promise<void>;
}

/** Starts every app on free ports against the machine's Postgres (fresh database) and NATS (own stream). */
export async function startE2E(
  label: string,
  env: Record<string, string> = {},
  opts: Pick<StartPlatformOptions, 'replicas' | 'startTimeoutMs' | 'restart'> = {},
): Promise<E2E> {
  const adminKey = newToken().token;
  const secretsKeys = env.PIM_SECRETS_KEYS ?? newSecretsKey('e2e');
  const db = await createTestDatabase(label);
  const stream = await createTestStream(label);
  const logs: string[] = [];
  // Uploaded and generated files of this platform only, removed when it closes.
  const dataDir = mkdtempSync(join(tmpdir(), `pim-${label}-`));
  let platform: RunningPlatform;
  try {
    platform = await startPlatform({
      databaseUrl: db.url,
      natsUrl: stream.url,
      portBase: 'free',
      dataDir,
      env: {
        PIM_EVENTS_STREAM: stream.name,
        PIM_SUBJECT_PREFIX: stream.subjectPrefix,
        LOG_LEVEL: 'warn',
        PIM_BOOTSTRAP_API_KEY: adminKey,
        PIM_SECRETS_KEYS: secretsKeys,
        // Pools of 5 (not 10-20): a whole platform then stays well inside a default Postgres's 100
        // connections at its busiest, with room for the test's own and for leftovers of the file before.
        DB_POOL_SIZE: '5',
        ...env,
      },
      log: (line) => logs.push(line),
      // `npm test` runs the end-to-end tests on the build `npm start` runs (tools/test.sh builds it first).
      ...(process.env.PIM_TEST_RUNTIME === 'build' ? { runtime: 'build' as const } : {}),
      ...opts,
    });
  } catch (err) {
    await stream.destroy();
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw new Error(`${(err as Error).message}\n${logs.slice(-40).join('\n')}`);
  }
  const base = platform.gatewayUrl.replace(/\/api\/v1$/, '');
  const api = apiAt(base, adminKey);
  // Every answer as the gateway gave it (the tests check 429s and 503s): no retries.
  const clientWith = (apiKey?: string) => createPimClient({ baseUrl: base, apiKey, retries: false });
  const client = clientWith(adminKey);
  return {
    platform,
    db,
    stream,
    logs,
    adminKey,
    secretsKeys,
    client,
    clientWith,
    api,
    async newKey(scopes, user = {}) {
      const { data, error, response } = await client.POST('/api/v1/api-keys', {
        body: { name: `test ${scopes.join(' ')}`, scopes: scopes as Schema<'ApiKeyInput'>['scopes'], ...user },
      });
      if (!data) throw new Error(`creating a key failed: ${response.status} ${JSON.stringify(error)}`);
      return data.key;
    },
    async close() {
      await platform.stop();
      await stream.destroy();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A raw HTTP call to the gateway at `base` (one replica's, say) with `key` unless `authorization` is
 * given ('' sends none): JSON bodies (a string is sent as it is), the answer's status, headers and
 * parsed JSON.
 */
export function apiAt(base: string, key: string): E2E['api'] {
  return async (method, path, body, headers = {}) => {
    const { authorization, ...rest } = headers;
    const auth: Record<string, string> =
      authorization === '' ? {} : { authorization: authorization ?? `Bearer ${key}` };
    const res = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? { ...auth, ...rest } : { 'content-type': 'application/json', ...auth, ...rest },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      json: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    };
  };
}

/** Polls until check() returns true or the time is up. */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not met in time');
}
