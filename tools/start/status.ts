// `npm run status`: what the running `npm start` runs — each app's replicas, health, restarts,
// memory and URLs — read from the state file the launcher keeps (<PIM_DATA_DIR>/platform.json).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { probeApp } from './health';
import type { PlatformState } from './platform';

/** One replica's line of the status table. */
export interface ReplicaStatus {
  name: string;
  port: number;
  health: string;
  restarts: number;
  rssMb?: number;
  uptime?: string;
}

/** Whether a process id is alive (signal 0). */
export function alive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Resident memory of a process in MB: /proc on Linux, `ps` elsewhere; undefined if unknown. */
export function rssMb(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
    if (kb > 0) return Math.round(kb / 1024);
  } catch {
    // not Linux, or gone: ask ps
  }
  try {
    const kb = Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim());
    return kb > 0 ? Math.round(kb / 1024) : undefined;
  } catch {
    return undefined;
  }
}

/** "3h 12m", "4m 05s", "12s". */
export function duration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** Probes every replica of a state and measures it. */
export async function replicaStatuses(state: PlatformState, now = Date.now()): Promise<ReplicaStatus[]> {
  return Promise.all(
    state.replicas.map(async (r) => {
      const running = alive(r.pid);
      const probe = running ? await probeApp(r, r.port) : undefined;
      return {
        name: r.name,
        port: r.port,
        health: !running ? 'down (restarting)' : probe?.ok ? 'healthy' : `unhealthy: ${probe?.reason ?? ''}`,
        restarts: r.restarts,
        rssMb: running && r.pid ? rssMb(r.pid) : undefined,
        uptime: running && r.started_at ? duration(now - Date.parse(r.started_at)) : undefined,
      };
    }),
  );
}

/** The status table as text. */
export function formatStatus(state: PlatformState, rows: ReplicaStatus[]): string {
  const table = [
    ['app', 'port', 'health', 'restarts', 'rss', 'up for'],
    ...rows.map((r) => [
      r.name,
      String(r.port),
      r.health,
      String(r.restarts),
      r.rssMb === undefined ? '-' : `${r.rssMb} MB`,
      r.uptime ?? '-',
    ]),
  ];
  const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
  const lines = table.map((row) =>
    row
      .map((cell, i) => cell.padEnd(widths[i]))
      .join('  ')
      .trimEnd(),
  );
  const total = rows.reduce((sum, r) => sum + (r.rssMb ?? 0), 0);
  const gateways = state.replicas.filter((r) => r.kind === 'http').map((r) => `http://127.0.0.1:${r.port}/api/v1`);
  const metrics = state.replicas
    .filter((r) => r.metrics_port)
    .map((r) => `${r.name} :${r.metrics_port}`)
    .join(', ');
  return [
    ...lines,
    '',
    `apps in all: ${rows.length} processes, ${total} MB resident`,
    `API       ${gateways.join(', ')}`,
    `docs      ${gateways[0]?.replace(/\/api\/v1$/, '/docs') ?? '-'}`,
    `Postgres  ${state.database_url}`,
    `NATS      ${state.nats_url}`,
    ...(metrics ? [`metrics   ${metrics} (GET /metrics)`] : []),
  ].join('\n');
}

async function main(): Promise<void> {
  const dataDir = resolve(__dirname, '..', '..', process.env.PIM_DATA_DIR || '.data');
  const file = resolve(dataDir, 'platform.json');
  const state = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as PlatformState) : undefined;
  if (!state || !alive(state.launcher_pid)) {
    process.stdout.write(`The platform is not running (no npm start keeps ${file}). Start it with: npm start\n`);
    process.exitCode = 3;
    return;
  }
  const rows = await replicaStatuses(state);
  process.stdout.write(`${formatStatus(state, rows)}\n`);
  if (!state.up || rows.some((r) => r.health !== 'healthy')) process.exitCode = 1;
}

if (require.main === module) void main();
