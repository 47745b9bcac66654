// `npm start`: the whole platform on this machine, configured by environment variables (see
// the README's configuration table). A thin wrapper over Platform in platform.ts.
import { resolve } from 'node:path';
import { Platform, ROOT } from './platform';
import { redactUrl } from './postgres';
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

async function main(): Promise<void> {
  const env = process.env;
  const dataDir = resolve(ROOT, env.PIM_DATA_DIR || '.data');
  const platform = new Platform({
    databaseUrl: env.DATABASE_URL || undefined,
    natsUrl: env.NATS_URL || undefined,
    dataDir,
    pgPort: intFromEnv('PIM_PG_PORT', 65535),
    natsPort: intFromEnv('PIM_NATS_PORT', 65535),
    startTimeoutMs: intFromEnv('PIM_START_TIMEOUT_MS'),
    stopGraceMs: intFromEnv('PIM_STOP_GRACE_MS'),
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
    const where = (url: string, own: boolean, dir: string): string => (own ? `${url} (started here, data in ${dir})` : url);
    say('the platform is up');
    say(`  API       ${up.gatewayUrl}`);
    say(`  docs      ${up.docsUrl}`);
    say(`  Postgres  ${where(redactUrl(up.databaseUrl), !env.DATABASE_URL, resolve(dataDir, 'postgres'))}`);
    say(`  NATS      ${where(up.natsUrl, !env.NATS_URL, resolve(dataDir, 'nats'))}`);
    say(`  apps      ${Object.entries(up.ports).map(([name, port]) => `${name} :${port}`).join(', ')}`);
    say('Ctrl-C stops everything.');
  } catch (err) {
    if (err instanceof StartAborted) return; // a signal arrived; onSignal finishes the stop and exits
    fail(err instanceof StartError ? err.message : String((err as Error).stack ?? err));
  }
}

void main();
