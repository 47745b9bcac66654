import { createTestDatabase, createTestStream, type TestDatabase, type TestStream } from '@pim/testing';
import { startPlatform, type RunningPlatform } from '../../tools/start';

/** The whole platform as `npm start` runs it, on a fresh database and its own stream, for one test file. */
export interface E2E {
  platform: RunningPlatform;
  db: TestDatabase;
  stream: TestStream;
  /** Lines the apps printed (for diagnosing a failure). */
  logs: string[];
  api(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }>;
  close(): Promise<void>;
}

/** Starts every app on free ports against the machine's Postgres (fresh database) and NATS (own stream). */
export async function startE2E(label: string): Promise<E2E> {
  const db = await createTestDatabase(label);
  const stream = await createTestStream(label);
  const logs: string[] = [];
  let platform: RunningPlatform;
  try {
    platform = await startPlatform({
      databaseUrl: db.url,
      natsUrl: stream.url,
      portBase: 'free',
      env: { PIM_EVENTS_STREAM: stream.name, PIM_SUBJECT_PREFIX: stream.subjectPrefix, LOG_LEVEL: 'warn' },
      log: (line) => logs.push(line),
    });
  } catch (err) {
    await stream.destroy();
    await db.drop();
    throw new Error(`${(err as Error).message}\n${logs.slice(-40).join('\n')}`);
  }
  const base = platform.gatewayUrl.replace(/\/api\/v1$/, '');
  return {
    platform,
    db,
    stream,
    logs,
    async api(method, path, body, headers = {}) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, headers: res.headers, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    },
    async close() {
      await platform.stop();
      await stream.destroy();
      await db.drop();
    },
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
