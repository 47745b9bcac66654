import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newSecretsKey } from '@pim/secrets';
import { createTestDatabase, startReceiver, type TestDatabase, type TestReceiver } from '@pim/testing';
import { startPlatform, type RunningPlatform } from '../../../tools/start';
import { newToken } from '../../../apps/gateway/src/auth/api-key.token';
import { ChaosApi } from './api';
import type { ChaosOptions } from './options';
import type { Random } from './random';

/** App output lines kept for a report (the last ones). */
const KEPT_LINES = 4_000;

/**
 * Short leases and retry delays, so work a killed process held is taken over within seconds, and
 * a webhook receiver's refusals are retried for long enough to outlast the chaos.
 */
export const CHAOS_ENV: Record<string, string> = {
  LOG_LEVEL: 'warn',
  RATE_LIMIT_PER_MINUTE: '1000000',
  WEBHOOKS_ALLOWED_TARGETS: '127.0.0.0/8,::1/128',
  WEBHOOKS_LEASE_MS: '3000',
  WEBHOOKS_FANOUT_ACK_WAIT_MS: '3000',
  WEBHOOKS_RETRY_SCHEDULE: '200ms,500ms,1s,2s,2s,3s,3s,5s,5s,5s,10s,10s',
  OUTBOX_MAX_BACKOFF_MS: '1000',
  PRODUCT_APPROVAL_LEASE_MS: '3000',
  IMPORT_SUPERVISE_SECONDS: '1',
  IMPORT_HEARTBEAT_SECONDS: '10',
  SHUTDOWN_GRACE_MS: '3000',
  // An Idempotency-Key claimed by a gateway that was killed is taken over after twice this (40 s).
  REQUEST_TIMEOUT_MS: '20000',
};

/** The platform under chaos: its own nats-server, a fresh database, a webhook receiver. */
export interface ChaosPlatform {
  platform: RunningPlatform;
  db: TestDatabase;
  receiver: TestReceiver;
  api: ChaosApi;
  adminKey: string;
  /** Files (imports, exports) and the JetStream store. */
  dataDir: string;
  /** The last output lines of every process. */
  lines: string[];
  /** Set when supervision gave up on a crash-looping app (and stopped the platform). */
  gaveUp?: string;
  close(): Promise<void>;
}

/**
 * Starts every app as `npm start` does, with `restart: 'on-crash'`: a SIGKILLed app comes back by
 * itself, through the same supervision production's launcher uses. NATS is a nats-server of this
 * platform (not the machine's shared one), with its JetStream store in `dataDir`, so killing it
 * disturbs no one else and its stream survives each restart.
 */
export async function startChaosPlatform(opts: ChaosOptions, random: Random): Promise<ChaosPlatform> {
  // The machine's Postgres is shared with other test runs: out of connections is worth a wait and another try.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts, random);
    } catch (err) {
      if (attempt === 3 || !/too many clients/.test((err as Error).message)) throw err;
      opts.log(`Postgres is out of connections (other test runs); starting again in 15 s`);
      await new Promise((r) => setTimeout(r, 15_000));
    }
  }
}

async function startOnce(opts: ChaosOptions, random: Random): Promise<ChaosPlatform> {
  const adminKey = newToken().token;
  const db = await createTestDatabase('chaos');
  const dataDir = mkdtempSync(join(tmpdir(), 'pim-chaos-'));
  const receiver = await startReceiver();
  // Kills also land while deliveries are in flight; now and then the receiver refuses one.
  const answers = random.fork(1_000);
  receiver.answer(() => (answers.chance(0.02) ? { status: 503 } : { status: 200, delayMs: answers.int(0, 30) }));
  const lines: string[] = [];
  const log = (line: string) => {
    lines.push(line);
    if (lines.length > KEPT_LINES) lines.splice(0, lines.length - KEPT_LINES);
  };
  const cleanUp = async () => {
    await receiver.close();
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  const chaos: Partial<ChaosPlatform> = { db, receiver, adminKey, dataDir, lines };
  let platform: RunningPlatform;
  try {
    platform = await startPlatform({
      databaseUrl: db.url,
      dataDir,
      portBase: 'free',
      replicas: opts.replicas,
      restart: 'on-crash',
      onGiveUp: (message) => {
        chaos.gaveUp = message;
        opts.log(`supervision gave up and stopped the platform: ${message}`);
      },
      startTimeoutMs: 180_000,
      stopGraceMs: 5_000,
      env: {
        ...CHAOS_ENV,
        PIM_BOOTSTRAP_API_KEY: adminKey,
        PIM_SECRETS_KEYS: newSecretsKey('chaos'),
      },
      log,
    });
  } catch (err) {
    await cleanUp();
    // The apps' own last lines: a failing app's reason is not drowned by another's noise (NATS logs a
    // line per stray connection).
    const apps = lines.filter((l) => !l.startsWith('[nats]'));
    throw new Error(
      `${(err as Error).message}\n${[...apps.slice(-40), ...lines.filter((l) => l.startsWith('[nats]')).slice(-5)].join('\n')}`,
    );
  }
  return Object.assign(chaos, {
    platform,
    api: new ChaosApi(platform.gatewayUrls, adminKey),
    async close() {
      await platform.stop();
      await cleanUp();
    },
  }) as ChaosPlatform;
}
