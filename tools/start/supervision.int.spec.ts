import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestDatabase, type TestDatabase } from '@pim/testing';
import { probeHttp } from './health';
import { canConnect } from './ports';
import { CRASH_LOOP_LIMIT, restartDelayMs, startPlatform, type PlatformState, type RunningPlatform } from './platform';
import { duration, formatStatus, replicaStatuses } from './status';
import { fixtureApps } from './fixtures/fixture.apps';
import { descendants, type ProcessInfo } from './fixtures/process-tree';

const NATS_URL = 'nats://127.0.0.1:4222';

async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(100);
  }
}

describe('duration', () => {
  it('reads as a person would say it', () => {
    expect([12_000, 245_000, 3_600_000 * 3 + 12 * 60_000].map(duration)).toEqual(['12s', '4m 05s', '3h 12m']);
  });
});

describe('restartDelayMs', () => {
  it('doubles from half a second up to 15 s, within a quarter either way', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => restartDelayMs(n, () => 0.5))).toEqual([
      500, 1000, 2000, 4000, 8000, 15000, 15000,
    ]);
    expect(restartDelayMs(1, () => 0)).toBe(375);
    expect(restartDelayMs(1, () => 1)).toBe(625);
  });
});

// Supervision as `npm start` runs it (restart: 'on-crash'), with the fixture apps.
describe('a platform that restarts what crashes', () => {
  let db: TestDatabase;
  let dir: string;
  let before: ProcessInfo[];

  beforeAll(async () => {
    db = await createTestDatabase('supervision');
    dir = mkdtempSync(join(tmpdir(), 'pim-supervision-'));
    before = descendants();
  });

  afterAll(async () => {
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = (
    lines: string[],
    http: Record<string, string> = {},
    onGiveUp?: (m: string) => void,
    stateFile?: string,
  ) =>
    startPlatform({
      stateFile,
      apps: fixtureApps({ http }),
      databaseUrl: db.url,
      natsUrl: NATS_URL,
      portBase: 'free',
      restart: 'on-crash',
      onGiveUp,
      log: (l) => lines.push(l),
    });

  it('brings a killed app back by itself, says so, and keeps the state `npm run status` shows', async () => {
    const lines: string[] = [];
    let platform: RunningPlatform | undefined;
    const stateFile = join(dir, 'platform.json');
    const status = async () => {
      const state = JSON.parse(readFileSync(stateFile, 'utf8')) as PlatformState;
      return { state, rows: await replicaStatuses(state) };
    };
    try {
      platform = await start(lines, {}, undefined, stateFile);
      const up = await status();
      expect(up.state).toMatchObject({ launcher_pid: process.pid, up: true });
      expect(up.rows.map((r) => [r.name, r.health, r.restarts])).toEqual([
        ['fixture-grpc', 'healthy', 0],
        ['fixture-http', 'healthy', 0],
      ]);
      expect(up.rows.every((r) => (r.rssMb ?? 0) > 0)).toBe(true);
      expect(formatStatus(up.state, up.rows)).toContain(`API       ${platform.gatewayUrl}`);

      const url = `http://127.0.0.1:${platform.ports['fixture-http']}`;
      platform.kill('fixture-http', 'SIGKILL');
      await eventually(async () => lines.includes('[start] fixture-http exited (signal SIGKILL)'), 5_000);
      expect((await status()).rows[1].health).toBe('down (restarting)');
      await eventually(async () => (await probeHttp(url)).ok, 15_000);
      expect(lines.some((l) => /^\[start\] restarting fixture-http in \d\.\d s \(crash 1 in a row\)$/.test(l))).toBe(
        true,
      );
      expect(platform.restarts()).toEqual({ 'fixture-http': 1 });
      await eventually(async () => (await status()).rows[1].health === 'healthy', 5_000);
      expect((await status()).rows[1].restarts).toBe(1);
    } finally {
      await platform?.stop();
    }
  });

  it('starts its own nats-server again when it dies, on its port and store', async () => {
    const lines: string[] = [];
    const dataDir = mkdtempSync(join(tmpdir(), 'pim-supervision-nats-'));
    const platform = await startPlatform({
      apps: fixtureApps(),
      databaseUrl: db.url,
      dataDir,
      portBase: 'free',
      restart: 'on-crash',
      stopGraceMs: 1000,
      log: (l) => lines.push(l),
    });
    try {
      const { port } = new URL(platform.natsUrl);
      platform.kill('nats', 'SIGKILL');
      await eventually(async () => lines.includes('[start] nats-server exited (signal SIGKILL)'), 5_000);
      await eventually(async () => canConnect('127.0.0.1', Number(port)), 15_000);
      expect(lines.some((l) => /^\[start\] starting nats-server again in \d\.\d s \(crash 1 in a row\)$/.test(l))).toBe(
        true,
      );
      expect(platform.restarts()).toEqual({ nats: 1 });
    } finally {
      await platform.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('gives up on an app that crashes at every start, stops everything and shows its last lines', async () => {
    const lines: string[] = [];
    let gaveUp: (message: string) => void = () => undefined;
    const given = new Promise<string>((resolve) => (gaveUp = resolve));
    const platform = await start(lines, { FIXTURE_CRASH_AFTER_FIRST: join(dir, 'started') }, gaveUp);
    try {
      platform.kill('fixture-http', 'SIGKILL');
      const message = await given;
      expect(message).toMatch(
        new RegExp(
          `^fixture-http crashed ${CRASH_LOOP_LIMIT} times in a row, the last [\\d.]+ s after its start; stopping the platform`,
        ),
      );
      expect(message).toContain('{"level":"fatal","msg":"cannot start: crashing on purpose"}');
      expect(lines.filter((l) => l.startsWith('[start] restarting fixture-http'))).toHaveLength(CRASH_LOOP_LIMIT - 1);
      // Everything it started is gone, the gRPC app too.
      const old = new Set(before.map((p) => `${p.pid}:${p.start}`));
      await eventually(async () => descendants().every((p) => old.has(`${p.pid}:${p.start}`)), 10_000);
    } finally {
      await platform.stop();
    }
  }, 90_000);
});
