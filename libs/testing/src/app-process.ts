import { spawn, spawnSync } from 'node:child_process';
import { createConnection, createServer } from 'node:net';
import { join } from 'node:path';

/** An app of this repository running as its own process for a test, on a free gRPC port. */
export interface AppProcess {
  /** `127.0.0.1:<port>` of its gRPC server. */
  address: string;
  /** What it printed, for a failing test's message. */
  output: string[];
  /** SIGTERM, then SIGKILL after 10 s; resolves when it has exited. */
  stop(): Promise<void>;
  /** SIGKILL at once (a crash); resolves when it has exited. */
  kill(): Promise<void>;
}

const ROOT = join(__dirname, '..', '..', '..');

/** A port nobody listens on now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const accepting = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/**
 * Migrates and starts `apps/<app>` (its `migrate.ts`, then its `main.ts`, run from source) against
 * `databaseUrl`, with its outbox relay off (a test's events stay in its own database), and waits
 * until its gRPC port accepts connections. Started by path, so a test of one app can talk to
 * another without importing it. `options.port` starts it on a given port (again, after a kill);
 * `options.migrate: false` skips the migrations (already run).
 */
export async function startAppProcess(
  app: string,
  databaseUrl: string,
  extraEnv: Record<string, string> = {},
  options: { port?: number; migrate?: boolean } = {},
): Promise<AppProcess> {
  const port = options.port ?? (await freePort());
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    OUTBOX_RELAY: 'false',
    LOG_LEVEL: 'warn',
    [`${app.toUpperCase().replace(/-/g, '_')}_GRPC_PORT`]: String(port),
    // No metrics port unless asked: a fixed one would clash with a platform running beside the tests.
    [`${app.toUpperCase().replace(/-/g, '_')}_METRICS_PORT`]: '0',
    ...extraEnv,
  };
  const run = (file: string) =>
    [process.execPath, ['-r', '@swc-node/register', join('apps', app, 'src', file)]] as const;
  const [node, migrateArgs] = run('migrate.ts');
  if (options.migrate !== false) {
    const migrated = spawnSync(node, migrateArgs, { cwd: ROOT, env, encoding: 'utf8' });
    if (migrated.status !== 0) throw new Error(`${app} migrations failed:\n${migrated.stderr}${migrated.stdout}`);
  }
  const child = spawn(node, run('main.ts')[1], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  child.stdout.on('data', (b: Buffer) => output.push(b.toString()));
  child.stderr.on('data', (b: Buffer) => output.push(b.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const until = Date.now() + 30_000;
  while (!(await accepting(port))) {
    if (child.exitCode !== null || Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error(`${app} did not start on port ${port}:\n${output.join('')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    address: `127.0.0.1:${port}`,
    output,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
