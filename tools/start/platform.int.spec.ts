import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { createTestDatabase, type TestDatabase } from '@pim/testing';
import { startPlatform, type RunningPlatform } from './platform';
import { probeGrpc, probeHttp } from './health';
import { crashApp, fixtureApps } from './fixtures/fixture.apps';
import { descendants, isAlive, type ProcessInfo } from './fixtures/process-tree';

const NATS_URL = 'nats://127.0.0.1:4222';

async function migrationRuns(databaseUrl: string): Promise<number> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM fixture.migration_runs');
    return Number(rows[0].n);
  } finally {
    await client.end();
  }
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(100);
  }
}

// Processes started by this test that are still running.
function leftovers(before: ProcessInfo[]): ProcessInfo[] {
  const old = new Set(before.map((p) => `${p.pid}:${p.start}`));
  return descendants().filter((p) => !old.has(`${p.pid}:${p.start}`));
}

describe('startPlatform with the machine’s Postgres and NATS', () => {
  const lines: string[] = [];
  let db: TestDatabase;
  let platform: RunningPlatform;
  let before: ProcessInfo[];

  beforeAll(async () => {
    db = await createTestDatabase('launcher');
    before = descendants();
    platform = await startPlatform({
      apps: fixtureApps({ http: { FIXTURE_IGNORE_SIGTERM: '1' } }),
      databaseUrl: db.url,
      natsUrl: NATS_URL,
      portBase: 'free',
      env: { PIM_EVENTS_STREAM: 'LAUNCHER_TEST', PIM_SUBJECT_PREFIX: 'launchertest.', LOG_LEVEL: 'debug' },
      stopGraceMs: 1000,
      log: (line) => lines.push(line),
    });
  });

  afterAll(async () => {
    await platform?.stop();
    await db?.drop();
  });

  it('starts every app and waits until each is healthy', async () => {
    expect(await probeGrpc(`127.0.0.1:${platform.ports['fixture-grpc']}`)).toEqual({ ok: true });
    expect(await probeHttp(`http://127.0.0.1:${platform.ports['fixture-http']}`)).toEqual({ ok: true });
    expect(platform.gatewayUrl).toBe(`http://127.0.0.1:${platform.ports['fixture-http']}/api/v1`);
    expect(platform.docsUrl).toBe(`http://127.0.0.1:${platform.ports['fixture-http']}/docs`);
    expect(platform.databaseUrl).toBe(db.url);
    expect(platform.natsUrl).toBe(NATS_URL);
  });

  it('ran the migrations once, in DATABASE_URL, before the apps started', async () => {
    expect(await migrationRuns(db.url)).toBe(1);
    const migrated = lines.findIndex((l) => l.startsWith('[fixture-grpc:migrate] ') && l.includes('migrated'));
    const listening = lines.findIndex((l) => l.startsWith('[fixture-grpc] ') && l.includes('listening'));
    expect(migrated).toBeGreaterThanOrEqual(0);
    expect(listening).toBeGreaterThan(migrated);
  });

  it('gives every app the shared settings, the gRPC addresses and its own port', async () => {
    const res = await fetch(`http://127.0.0.1:${platform.ports['fixture-http']}/env`);
    expect(await res.json()).toEqual({
      DATABASE_URL: db.url,
      NATS_URL,
      PIM_EVENTS_STREAM: 'LAUNCHER_TEST',
      PIM_SUBJECT_PREFIX: 'launchertest.',
      LOG_LEVEL: 'debug',
      FIXTURE_GRPC_URL: `127.0.0.1:${platform.ports['fixture-grpc']}`,
      FIXTURE_HTTP_PORT: String(platform.ports['fixture-http']),
      FIXTURE_GRPC_PORT: null,
      SWC_NODE_PROJECT: join(__dirname, '..', '..', 'tsconfig.json'),
    });
  });

  it('prefixes each output line with the app name', () => {
    expect(lines).toContain(
      `[fixture-http] {"level":"info","msg":"listening","port":${platform.ports['fixture-http']}}`,
    );
  });

  it('kill() takes an app down and restart() brings it back healthy', async () => {
    const address = `127.0.0.1:${platform.ports['fixture-grpc']}`;
    platform.kill('fixture-grpc', 'SIGKILL');
    await eventually(async () => lines.includes('[start] fixture-grpc exited (signal SIGKILL)'));
    expect(await probeGrpc(address, 300)).toMatchObject({ ok: false });

    await platform.restart('fixture-grpc');
    expect(await probeGrpc(address)).toEqual({ ok: true });
    // restart() does not migrate again
    expect(await migrationRuns(db.url)).toBe(1);
  });

  it('stop() SIGKILLs an app that ignores SIGTERM and leaves no process behind', async () => {
    const running = leftovers(before);
    expect(running.length).toBeGreaterThanOrEqual(2);
    await platform.stop();
    expect(running.filter(isAlive)).toEqual([]);
    expect(leftovers(before)).toEqual([]);
    expect(lines).toContain('[fixture-http] {"level":"warn","msg":"ignoring SIGTERM"}');
    expect(lines).toContain('[fixture-http] did not stop within 1000 ms; killing it');
    // stop() is idempotent
    await platform.stop();
  });
});

describe('startPlatform when start-up fails', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('launcherfail');
  });

  afterAll(async () => {
    await db?.drop();
  });

  it('names an app that exits during start-up, and stops the others', async () => {
    const before = descendants();
    const lines: string[] = [];
    const [grpc] = fixtureApps();
    await expect(
      startPlatform({
        apps: [grpc, crashApp],
        databaseUrl: db.url,
        natsUrl: NATS_URL,
        portBase: 'free',
        log: (l) => lines.push(l),
      }),
    ).rejects.toThrow('fixture-crash exited during start-up (exit code 3)');
    expect(lines).toContain('[fixture-crash] {"level":"fatal","msg":"cannot start: on purpose"}');
    expect(leftovers(before)).toEqual([]);
  });

  it('names an app whose migration fails, and starts no app', async () => {
    const lines: string[] = [];
    await expect(
      startPlatform({
        apps: fixtureApps({ grpc: { FIXTURE_MIGRATE_FAIL: '1' } }),
        databaseUrl: db.url,
        natsUrl: NATS_URL,
        portBase: 'free',
        log: (l) => lines.push(l),
      }),
    ).rejects.toThrow('migrations of fixture-grpc failed (exit code 1)');
    expect(lines.some((l) => l.startsWith('[fixture-grpc] ') || l.startsWith('[fixture-http] '))).toBe(false);
  });

  it('names an app that does not become healthy in time', async () => {
    const before = descendants();
    await expect(
      startPlatform({
        // Only the app under test, with time enough to boot on a loaded machine: the last check must be its 503.
        apps: fixtureApps({ http: { FIXTURE_NOT_READY: '1' } }).filter((a) => a.name === 'fixture-http'),
        databaseUrl: db.url,
        natsUrl: NATS_URL,
        portBase: 'free',
        startTimeoutMs: 8000,
        log: () => undefined,
      }),
    ).rejects.toThrow(/^fixture-http did not become ready within 8 s \(last check: GET \/readyz answered 503\)$/);
    expect(leftovers(before)).toEqual([]);
  });
});

describe('startPlatform without DATABASE_URL and NATS_URL', () => {
  let dataDir: string;

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'pim-launcher-'));
  });

  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs an embedded Postgres and a local nats-server in dataDir, and reuses them on the next start', async () => {
    const before = descendants();
    const lines: string[] = [];
    const start = () => startPlatform({ apps: fixtureApps(), dataDir, portBase: 'free', log: (l) => lines.push(l) });

    const first = await start();
    try {
      expect(await probeGrpc(`127.0.0.1:${first.ports['fixture-grpc']}`)).toEqual({ ok: true });
      expect(await probeHttp(`http://127.0.0.1:${first.ports['fixture-http']}`)).toEqual({ ok: true });
      expect(first.databaseUrl).toMatch(/^postgres:\/\/postgres:[^@]+@127\.0\.0\.1:\d+\/pim$/);
      expect(await migrationRuns(first.databaseUrl)).toBe(1);
      const nc = await connect({ servers: first.natsUrl });
      try {
        const jsm = await jetstreamManager(nc);
        expect((await jsm.getAccountInfo()).streams).toBe(0);
      } finally {
        await nc.close();
      }
    } finally {
      await first.stop();
    }
    expect(existsSync(join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);
    expect(existsSync(join(dataDir, 'nats', 'jetstream'))).toBe(true);
    expect(lines.some((l) => l.startsWith('[postgres] creating a new cluster'))).toBe(true);

    lines.length = 0;
    const second = await start();
    try {
      // Same cluster: the first run's row is still there, and initdb did not run again.
      expect(await migrationRuns(second.databaseUrl)).toBe(2);
      expect(lines.some((l) => l.startsWith('[postgres] reusing the cluster'))).toBe(true);
      expect(lines.some((l) => l.startsWith('[postgres] creating a new cluster'))).toBe(false);
    } finally {
      await second.stop();
    }
    expect(leftovers(before)).toEqual([]);
  }, 120_000);
});
