import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { userInfo } from 'node:os';
import { Client } from 'pg';
import { ManagedProcess, describeExit } from './managed-process';
import { StartError, waitUntil } from './wait';

/** Password of the embedded cluster's "postgres" user; it listens on 127.0.0.1 only. */
export const EMBEDDED_PASSWORD = 'postgres';

/** The database the platform uses inside the embedded cluster. */
export const EMBEDDED_DATABASE = 'pim';

/** What starting the embedded cluster needs. */
export interface EmbeddedPostgresOptions {
  /** Cluster folder, e.g. .data/postgres. */
  dir: string;
  port: number;
  nodeArgs: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  log: (line: string) => void;
  color?: boolean;
  timeoutMs: number;
  signal: AbortSignal;
  /** Called as soon as the process exists, so a stop during start-up can reach it. */
  track: (proc: ManagedProcess) => void;
}

/** Hides the password of a connection URL for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${encodeURIComponent(database)}`;
  return u.toString();
}

/**
 * Checks that the database of `url` answers, creating it (through the server's "postgres"
 * database) when the server is up but the database does not exist yet. `probeFirst: false` skips
 * the probe when the database is likely missing (a fresh embedded cluster), to keep its log clean.
 */
export async function ensureDatabase(url: string, opts: { probeFirst?: boolean } = {}): Promise<void> {
  if (opts.probeFirst !== false) {
    const probe = new Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    try {
      await probe.connect();
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== '3D000') {
        throw new StartError(`Postgres at ${redactUrl(url)} is not reachable: ${(err as Error).message}`);
      }
    } finally {
      await probe.end().catch(() => undefined);
    }
  }
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  const admin = new Client({ connectionString: withDatabase(url, 'postgres'), connectionTimeoutMillis: 5000 });
  try {
    await admin.connect();
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) await admin.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } catch (err) {
    // 42P04: someone created it between the check and the CREATE.
    if ((err as { code?: string }).code !== '42P04') {
      throw new StartError(`cannot create database "${name}" at ${redactUrl(url)}: ${(err as Error).message}`);
    }
  } finally {
    await admin.end().catch(() => undefined);
  }
}

// Postgres runs as the "postgres" user when the launcher is root; it must be able to reach its folder.
function makeReachable(dir: string): void {
  if (userInfo().uid !== 0) return;
  const parent = dirname(dir);
  const mode = statSync(parent).mode;
  if ((mode & 0o001) === 0) chmodSync(parent, mode | 0o001);
}

/**
 * Starts the embedded Postgres (the embedded-pg.main.ts helper) on 127.0.0.1:`port` with its
 * cluster in `dir`, and makes sure the "pim" database exists. Resolves with its URL.
 */
export async function startEmbeddedPostgres(
  opts: EmbeddedPostgresOptions,
): Promise<{ url: string; process: ManagedProcess }> {
  mkdirSync(dirname(opts.dir), { recursive: true });
  makeReachable(opts.dir);
  let ready = false;
  const proc = new ManagedProcess({
    name: 'postgres',
    command: process.execPath,
    // The helper beside this file: embedded-pg.main.ts from source, its .js in a build.
    args: [...opts.nodeArgs, join(__dirname, `embedded-pg.main${extname(__filename)}`)],
    env: { ...opts.env, PIM_PG_DIR: opts.dir, PIM_PG_PORT: String(opts.port), PIM_PG_PASSWORD: EMBEDDED_PASSWORD },
    cwd: opts.cwd,
    log: opts.log,
    color: opts.color,
    // The helper prints this line once Postgres accepts connections.
    onLine: (line) => {
      if (line === `ready on 127.0.0.1:${opts.port}`) ready = true;
    },
  });
  opts.track(proc);
  await waitUntil({
    what: 'embedded Postgres',
    timeoutMs: opts.timeoutMs,
    signal: opts.signal,
    exited: proc.exited,
    exitMessage: (s) => `embedded Postgres exited during start-up (${describeExit(s)}); see the [postgres] lines above`,
    check: async () => (ready ? { ok: true } : { ok: false, reason: 'not ready yet' }),
  });
  const url = `postgres://postgres:${EMBEDDED_PASSWORD}@127.0.0.1:${opts.port}/${EMBEDDED_DATABASE}`;
  await ensureDatabase(url, { probeFirst: false });
  return { url, process: proc };
}
