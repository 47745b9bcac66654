import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { createTestDatabase, type TestDatabase } from '@pim/testing';
import { startPlatform, type RunningPlatform } from './platform';
import { canConnect } from './ports';
import { fixtureApps } from './fixtures/fixture.apps';
import { descendants, type ProcessInfo } from './fixtures/process-tree';

/** Messages of a stream on the platform's NATS. */
async function streamMessages(url: string, stream: string): Promise<number> {
  const nc = await connect({ servers: url });
  try {
    return (await (await jetstreamManager(nc)).streams.info(stream)).state.messages;
  } finally {
    await nc.close();
  }
}

// What the chaos suite does to NATS: SIGKILL the platform's own nats-server and start it again on
// the same port and JetStream store, so streams and their messages outlive the kill.
describe('the local nats-server under kill and restart', () => {
  let db: TestDatabase;
  let dataDir: string;
  let platform: RunningPlatform;
  let before: ProcessInfo[];
  const lines: string[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('localnats');
    before = descendants();
    dataDir = mkdtempSync(join(tmpdir(), 'pim-local-nats-'));
    platform = await startPlatform({
      apps: fixtureApps(),
      databaseUrl: db.url,
      dataDir,
      portBase: 'free',
      stopGraceMs: 1000,
      log: (l) => lines.push(l),
    });
  });

  afterAll(async () => {
    await platform?.stop();
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps a stream and its messages across a SIGKILL and a restart on the same port', async () => {
    const nc = await connect({ servers: platform.natsUrl });
    try {
      await (await jetstreamManager(nc)).streams.add({ name: 'KEPT', subjects: ['kept.>'] });
      const js = jetstream(nc);
      for (let i = 0; i < 3; i++) await js.publish('kept.one', `m${i}`);
    } finally {
      await nc.close();
    }
    const { port } = new URL(platform.natsUrl);

    platform.kill('nats', 'SIGKILL');
    for (let i = 0; i < 50 && (await canConnect('127.0.0.1', Number(port), 100)); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(await canConnect('127.0.0.1', Number(port), 200)).toBe(false);

    await platform.restart('nats');
    expect(await streamMessages(platform.natsUrl, 'KEPT')).toBe(3);
    expect(lines).toContain('[start] starting nats-server again');
  });

  it('restarts a nats-server that still runs', async () => {
    await platform.restart('nats');
    expect(await streamMessages(platform.natsUrl, 'KEPT')).toBe(3);
  });

  it('refuses to control a NATS it did not start', async () => {
    const other = await startPlatform({
      apps: fixtureApps().filter((a) => a.kind === 'http'),
      databaseUrl: db.url,
      natsUrl: platform.natsUrl,
      portBase: 'free',
      log: () => undefined,
    });
    try {
      expect(() => other.kill('nats', 'SIGKILL')).toThrow('no local nats-server to control');
      await expect(other.restart('nats')).rejects.toThrow('no local nats-server to control');
    } finally {
      await other.stop();
    }
  });

  it('stops the newest nats-server with the platform, leaving no process behind', async () => {
    await platform.stop();
    const old = new Set(before.map((p) => `${p.pid}:${p.start}`));
    expect(descendants().filter((p) => !old.has(`${p.pid}:${p.start}`))).toEqual([]);
  });
});
