import { accessSync, constants, mkdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { ManagedProcess, describeExit } from './managed-process';
import { canConnect } from './ports';
import { StartError, waitUntil } from './wait';

/** The one line printed when there is no NATS to use. */
export const NATS_MISSING =
  'nats-server not found (looked on PATH and in /usr/sbin): install it with `apt-get install nats-server`, or set NATS_URL to a running NATS with JetStream';

/** Finds the nats-server binary on PATH or in the sbin folders Debian installs it to. */
export function findNatsServer(path = process.env.PATH ?? ''): string | undefined {
  const dirs = [...path.split(delimiter).filter(Boolean), '/usr/sbin', '/usr/local/sbin', '/usr/local/bin', '/usr/bin'];
  for (const dir of dirs) {
    const candidate = join(dir, 'nats-server');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Host and port of the first server in a NATS_URL ("nats://h:p,nats://h2:p2" or "h:p"). */
export function firstNatsServer(url: string): { host: string; port: number } {
  const first = url.split(',')[0].trim();
  const parsed = new URL(first.includes('://') ? first : `nats://${first}`);
  return { host: parsed.hostname.replace(/^\[|\]$/g, ''), port: parsed.port ? Number(parsed.port) : 4222 };
}

/** Fails with a clear message when nothing answers at NATS_URL. */
export async function checkNats(url: string): Promise<void> {
  const { host, port } = firstNatsServer(url);
  if (!(await canConnect(host, port, 3000))) throw new StartError(`NATS at ${url} is not reachable (NATS_URL)`);
}

/** What starting a local nats-server needs. */
export interface LocalNatsOptions {
  /** JetStream store folder, e.g. .data/nats. */
  dir: string;
  port: number;
  /** Node with the orphan guard preloaded; nats-server runs under supervise.cjs. */
  nodeArgs: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  log: (line: string) => void;
  color?: boolean;
  timeoutMs: number;
  signal: AbortSignal;
  track: (proc: ManagedProcess) => void;
}

/** Starts nats-server with JetStream on 127.0.0.1:`port`, its store in `dir`; resolves with its URL. */
export async function startLocalNats(opts: LocalNatsOptions): Promise<{ url: string; process: ManagedProcess }> {
  const binary = findNatsServer(opts.env.PATH);
  if (!binary) throw new StartError(NATS_MISSING);
  mkdirSync(opts.dir, { recursive: true });
  const proc = new ManagedProcess({
    name: 'nats',
    command: process.execPath,
    args: [
      ...opts.nodeArgs,
      join(__dirname, 'supervise.cjs'),
      binary,
      '-a',
      '127.0.0.1',
      '-p',
      String(opts.port),
      '-js',
      '-sd',
      opts.dir,
    ],
    env: opts.env,
    cwd: opts.cwd,
    log: opts.log,
    color: opts.color,
  });
  opts.track(proc);
  await waitUntil({
    what: 'nats-server',
    timeoutMs: opts.timeoutMs,
    signal: opts.signal,
    exited: proc.exited,
    exitMessage: (s) => `nats-server exited during start-up (${describeExit(s)}); see the [nats] lines above`,
    check: async () =>
      (await canConnect('127.0.0.1', opts.port)) ? { ok: true } : { ok: false, reason: 'port not open yet' },
  });
  return { url: `nats://127.0.0.1:${opts.port}`, process: proc };
}
