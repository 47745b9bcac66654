// `npm start`: the whole platform on this machine, configured by environment variables (see
// the README's configuration table). A thin wrapper over Platform in platform.ts.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { newSecretsKey } from '@pim/secrets';
import { newToken } from '../../apps/gateway/src/auth/api-key.token';
import { Platform, ROOT } from './platform';
import { redactUrl } from './postgres';
import { OWN, nodeArgs, runnable } from './runtime';
import { StartAborted, StartError } from './wait';

const color = process.stdout.isTTY === true && !process.env.NO_COLOR;

function say(message: string): void {
  process.stdout.write(color ? `\u001b[1m[start]\u001b[0m ${message}\n` : `[start] ${message}\n`);
}

function fail(message: string): never {
  say(`error: ${message}`);
  process.exit(1);
}

function intFromEnv(name: string, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > max) fail(`${name}=${JSON.stringify(raw)} is not valid`);
  return value;
}

/**
 * The first admin key: PIM_BOOTSTRAP_API_KEY when set; otherwise generated on the first start,
 * kept in <data>/bootstrap-api-key (mode 600) and printed that once.
 */
function bootstrapKey(dataDir: string): { key: string; file?: string; isNew: boolean } {
  if (process.env.PIM_BOOTSTRAP_API_KEY) return { key: process.env.PIM_BOOTSTRAP_API_KEY, isNew: false };
  const file = resolve(dataDir, 'bootstrap-api-key');
  if (existsSync(file)) return { key: readFileSync(file, 'utf8').trim(), file, isNew: false };
  mkdirSync(dataDir, { recursive: true });
  const { token } = newToken();
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return { key: token, file, isNew: true };
}

/**
 * The operator keys that seal webhook secrets and channel credentials (PIM_SECRETS_KEYS): the
 * variable when set; otherwise generated on the first start and kept in <data>/secrets-keys (mode
 * 600) beside the data they open. Rotate by editing the file: `new:…,old:…` (docs/decisions/secrets.md).
 */
function secretsKeys(dataDir: string): { keys: string; file?: string; isNew: boolean } {
  if (process.env.PIM_SECRETS_KEYS) return { keys: process.env.PIM_SECRETS_KEYS, isNew: false };
  const file = resolve(dataDir, 'secrets-keys');
  if (existsSync(file)) return { keys: readFileSync(file, 'utf8').trim(), file, isNew: false };
  mkdirSync(dataDir, { recursive: true });
  const keys = newSecretsKey(`local-${new Date().toISOString().slice(0, 10).replace(/-/g, '')}`);
  writeFileSync(file, `${keys}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return { keys, file, isNew: true };
}

/**
 * Replicas of every app: `npm start -- --replicas N` or PIM_REPLICAS=N (default 1), to try the
 * platform as it runs in production, where nothing may live in one process's memory.
 */
function replicas(args: string[]): number | undefined {
  const at = args.findIndex((a) => a === '--replicas' || a.startsWith('--replicas='));
  if (at < 0) return intFromEnv('PIM_REPLICAS', 8);
  const raw = args[at].includes('=') ? args[at].slice('--replicas='.length) : args[at + 1];
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 8) fail(`--replicas ${raw ?? ''} is not a number from 1 to 8`);
  return value;
}

/**
 * `npm start -- --demo`: the demo catalog (tools/demo, what `npm run demo` loads) through the API
 * once the platform is up, its output prefixed; without its webhook receiver, which would end
 * with it (`npm run demo` in another terminal keeps one and prints the deliveries).
 */
async function loadDemo(apiUrl: string, key: string): Promise<void> {
  say('loading the demo catalog (npm run demo)');
  const child = spawn(
    process.execPath,
    [...nodeArgs(OWN), runnable(resolve(ROOT, 'tools/demo/main.ts'), OWN), '--no-receiver', '--exit'],
    {
      cwd: ROOT,
      env: { ...process.env, PIM_API_URL: apiUrl, PIM_API_KEY: key },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  for (const stream of [child.stdout, child.stderr])
    createInterface({ input: stream }).on('line', (line) => process.stdout.write(`[demo] ${line}\n`));
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  if (code !== 0) say(`the demo catalog did not load (exit code ${code}); the platform keeps running`);
}

async function main(): Promise<void> {
  const env = process.env;
  const unknown = process.argv.slice(2).filter((a, i, all) => {
    // --source: npm-start.mjs ran this launcher from the sources, so the apps run from them too.
    if (a.startsWith('--replicas') || a === '--demo' || a === '--source') return false;
    return !(all[i - 1] === '--replicas' && !a.startsWith('--'));
  });
  if (unknown.length > 0) fail(`unknown option ${unknown[0]} (known: --replicas N, --demo, --source)`);
  const dataDir = resolve(ROOT, env.PIM_DATA_DIR || '.data');
  const admin = bootstrapKey(dataDir);
  const secrets = secretsKeys(dataDir);
  const platform = new Platform({
    env: { PIM_BOOTSTRAP_API_KEY: admin.key, PIM_SECRETS_KEYS: secrets.keys },
    databaseUrl: env.DATABASE_URL || undefined,
    natsUrl: env.NATS_URL || undefined,
    dataDir,
    pgPort: intFromEnv('PIM_PG_PORT', 65535),
    natsPort: intFromEnv('PIM_NATS_PORT', 65535),
    startTimeoutMs: intFromEnv('PIM_START_TIMEOUT_MS'),
    stopGraceMs: intFromEnv('PIM_STOP_GRACE_MS'),
    replicas: replicas(process.argv.slice(2)),
    stateFile: resolve(dataDir, 'platform.json'),
    // Heal like a `restart: unless-stopped` service; a crash loop stops everything, loudly.
    restart: 'on-crash',
    onGiveUp: () => {
      say('error: the platform stopped because an app keeps crashing (see above)');
      process.exit(1);
    },
  });

  let firstSignalAt = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (firstSignalAt === 0) {
      firstSignalAt = Date.now();
      say(`${signal}: stopping (apps, then NATS, then Postgres); press Ctrl-C again to kill everything`);
      platform.stop().then(
        () => process.exit(0),
        (err: unknown) => {
          console.error(err);
          process.exit(1);
        },
      );
      return;
    }
    // npm passes the terminal's Ctrl-C on as well: a second signal at once is the same key press.
    if (Date.now() - firstSignalAt < 1000) return;
    say('killing everything');
    platform.killAll();
    process.exit(130);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);

  try {
    const up = await platform.start();
    const where = (url: string, own: boolean, dir: string): string =>
      own ? `${url} (started here, data in ${dir})` : url;
    say('the platform is up');
    say(`  API       ${up.gatewayUrls.join(', ')}`);
    say(`  docs      ${up.docsUrl}`);
    say(`  Postgres  ${where(redactUrl(up.databaseUrl), !env.DATABASE_URL, resolve(dataDir, 'postgres'))}`);
    say(`  NATS      ${where(up.natsUrl, !env.NATS_URL, resolve(dataDir, 'nats'))}`);
    say(
      `  code      ${OWN.runtime === 'build' ? `the build in ${OWN.buildDir}` : 'the TypeScript sources (--source)'}`,
    );
    say(
      `  apps      ${Object.values(up.replicas)
        .flat()
        .map(({ name, port }) => `${name} :${port}`)
        .join(', ')}`,
    );
    const metrics = Object.entries(up.metricsPorts);
    if (metrics.length > 0)
      say(`  metrics   ${metrics.map(([name, port]) => `${name} :${port}`).join(', ')} (GET /metrics)`);
    if (admin.isNew) say(`  admin API key (shown once; kept in ${admin.file}): ${admin.key}`);
    else if (admin.file) say(`  admin API key: in ${admin.file}`);
    else say('  admin API key: PIM_BOOTSTRAP_API_KEY');
    if (secrets.file)
      say(
        `  secrets   sealed at rest with the operator key in ${secrets.file}${secrets.isNew ? ' (new; keep it with the data)' : ''}`,
      );
    else say('  secrets   sealed at rest with PIM_SECRETS_KEYS');
    if (process.argv.includes('--demo')) await loadDemo(up.gatewayUrl, admin.key);
    say('`npm run status` shows every app, its health, restarts and memory. Ctrl-C stops everything.');
  } catch (err) {
    if (err instanceof StartAborted) return; // a signal arrived; onSignal finishes the stop and exits
    fail(err instanceof StartError ? err.message : String((err as Error).stack ?? err));
  }
}

void main();
