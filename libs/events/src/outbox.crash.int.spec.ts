import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { DataSource } from 'typeorm';
import { createTestDatabase, createTestStream, testNatsUrl, type TestDatabase, type TestStream } from '@pim/testing';
import { OutboxRelay, recordEvent, type EventEnvelope } from './index';
import { outboxDataSource, outboxRow, quietLogger, waitFor } from './testing/outbox.fixtures';

const REPO_ROOT = resolve(__dirname, '../../..');
const CHILD = resolve(__dirname, 'testing/relay-child.ts');

interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

describe('outbox relay crash', () => {
  let db: TestDatabase;
  let stream: TestStream;
  let ds: DataSource;
  const schema = 'evt_crash';

  beforeAll(async () => {
    db = await createTestDatabase('evcrash');
    stream = await createTestStream('crash');
    ds = await outboxDataSource(db.url, schema);
  });
  afterAll(async () => {
    await ds?.destroy();
    await stream?.destroy();
    await db?.drop();
  });

  /** Runs the relay in its own process (Node + @swc-node/register) until it SIGKILLs itself. */
  function runChildRelay(killAt: 'claimed' | 'published'): Promise<ChildExit> {
    return new Promise((done, fail) => {
      const child = spawn(process.execPath, ['-r', '@swc-node/register', CHILD], {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          DATABASE_URL: db.url,
          DB_SCHEMA: schema,
          NATS_URL: testNatsUrl(),
          STREAM: stream.name,
          SUBJECT_PREFIX: stream.subjectPrefix,
          KILL_AT: killAt,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
      child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      const guard = setTimeout(() => child.kill('SIGKILL'), 45_000);
      child.on('error', fail);
      child.on('exit', (code, signal) => {
        clearTimeout(guard);
        done({ code, signal, stdout, stderr });
      });
    });
  }

  async function publishOnceWithFreshRelay(id: string): Promise<string[]> {
    const seen: string[] = [];
    const relay = new OutboxRelay({
      dataSource: ds,
      nc: stream.nc,
      stream: stream.name,
      subjectPrefix: stream.subjectPrefix,
      logger: quietLogger(),
      pollMs: 100,
      onPublished: (ids) => void seen.push(...ids),
    });
    await relay.start();
    try {
      await waitFor(async () => (await outboxRow(ds, id))?.published_at, 'the fresh relay to mark the event published');
    } finally {
      await relay.stop();
    }
    return seen;
  }

  async function inStream(id: string): Promise<EventEnvelope[]> {
    const all = await stream.messages();
    return all.filter((m) => m.msgId === id).map((m) => m.data as EventEnvelope);
  }

  it('killed after publishing but before marking: the event is in the stream once, and a fresh relay marks it without a duplicate', async () => {
    const e = await ds.transaction((m) =>
      recordEvent(m, { source: 'catalog', collection: 'products', action: 'created', data: { _id: 'crash-1' } }),
    );

    const exit = await runChildRelay('published');
    expect(exit.signal).toBe('SIGKILL');
    expect(JSON.parse(exit.stdout.trim().split('\n').pop()!)).toEqual({ killAt: 'published', ids: [e.id] });

    // Published to NATS, never marked in Postgres: exactly the window the outbox must survive.
    expect(await inStream(e.id)).toEqual([e]);
    expect((await outboxRow(ds, e.id))?.published_at).toBeNull();

    const republished = await publishOnceWithFreshRelay(e.id);
    // The fresh relay really sent it again; JetStream dropped it as a duplicate by Nats-Msg-Id.
    expect(republished).toEqual([e.id]);
    expect(await inStream(e.id)).toEqual([e]);
    expect((await outboxRow(ds, e.id))?.published_at).toBeInstanceOf(Date);
  });

  it('killed after claiming but before publishing: nothing reached the stream, and the event arrives once after restart', async () => {
    const e = await ds.transaction((m) =>
      recordEvent(m, { source: 'catalog', collection: 'products', action: 'deleted', data: { _id: 'crash-2' } }),
    );

    const exit = await runChildRelay('claimed');
    expect(exit.signal).toBe('SIGKILL');
    expect(JSON.parse(exit.stdout.trim().split('\n').pop()!)).toEqual({ killAt: 'claimed', ids: [e.id] });
    expect(await inStream(e.id)).toEqual([]);
    expect((await outboxRow(ds, e.id))?.published_at).toBeNull();

    expect(await publishOnceWithFreshRelay(e.id)).toEqual([e.id]);
    expect(await inStream(e.id)).toEqual([e]);
    expect((await outboxRow(ds, e.id))?.published_at).toBeInstanceOf(Date);
  });
});
