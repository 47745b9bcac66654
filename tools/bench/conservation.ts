// The conservation scenario: events produced through the REST API while the webhooks
// worker (fan-out + delivery), the producing app's outbox relay and a NATS server this run started
// itself are SIGKILLed and restarted at random moments. Afterwards every event in the producer's
// outbox (the source of truth) must have reached the receiver at least once, and every copy of an
// event must carry the same webhook-id. Used by test/e2e/conservation.e2e.spec.ts (small) and
// `npm run bench` (full size).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { Webhook } from 'standardwebhooks';
import { createTestDatabase } from '@pim/testing';
import { startPlatform, type AppSpec, type RunningPlatform } from '../start';
import { guardArgs } from '../start/platform';
import { ManagedProcess } from '../start/managed-process';
import { findNatsServer } from '../start/nats';
import { canConnect, freePort } from '../start/ports';
import { newToken } from '../../apps/gateway/src/auth/api-key.token';

/** How big and how rough a run is. */
export interface ConservationOptions {
  /** Successful API writes to make (each is one event). */
  events: number;
  /** Writes in flight at once. Default 8. */
  concurrency?: number;
  /** Writes started per second (paced, so the kills fall throughout production). Default 50. */
  ratePerSecond?: number;
  /** Pause between kills: a random time in [min, max] ms. Default [400, 1500]. */
  killEveryMs?: [number, number];
  /** How long a killed process stays down: a random time in [min, max] ms. Default [50, 800]. */
  downMs?: [number, number];
  /** The receiver answers after a random time in [min, max] ms, so kills also land mid-request. Default [0, 40]. */
  receiverDelayMs?: [number, number];
  /** How long to wait for the last deliveries once production is done. Default 120 s. */
  settleTimeoutMs?: number;
  /** Progress lines. */
  log?: (line: string) => void;
}

/** What a run saw. */
export interface ConservationReport {
  /** API writes that answered 2xx. */
  writes: number;
  /** Writes retried after an error (their first try may or may not have committed). */
  retries: number;
  /** Events in the producer's outbox at the end (every event that exists). */
  events: number;
  /** Requests the receiver got. */
  received: number;
  /** Distinct webhook-ids the receiver got. */
  distinct: number;
  /** Outbox events never received. */
  missing: string[];
  /** Deliveries beyond the first of an event. */
  duplicates: number;
  /** Events whose copies arrived under different webhook-ids (must be 0). */
  idMismatches: number;
  /** Requests whose signature the official library rejected (must be 0). */
  badSignatures: number;
  kills: Record<'worker' | 'relay' | 'nats', number>;
  durationMs: number;
}

const rand = ([min, max]: [number, number]) => min + Math.floor(Math.random() * (max - min + 1));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Received {
  webhookId: string;
  body: string;
  headers: Record<string, string>;
}

/** A local receiver that records every request and answers 200. */
async function receiver(delayMs: [number, number]): Promise<{ url: string; got: Received[]; server: Server }> {
  const got: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({
        webhookId: String(req.headers['webhook-id']),
        body: Buffer.concat(chunks).toString('utf8'),
        headers: req.headers as Record<string, string>,
      });
      setTimeout(() => res.writeHead(200).end('ok'), rand(delayMs));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got, server };
}

/** nats-server with JetStream on its own port and store, restartable on the same ones. */
class OwnNats {
  private proc: ManagedProcess | undefined;
  readonly url: string;

  constructor(
    private readonly port: number,
    private readonly dir: string,
    private readonly log: (line: string) => void,
  ) {
    this.url = `nats://127.0.0.1:${port}`;
  }

  async start(): Promise<void> {
    const binary = findNatsServer();
    if (!binary) throw new Error('nats-server not found (apt-get install nats-server)');
    this.proc = new ManagedProcess({
      name: 'own-nats',
      command: process.execPath,
      args: [
        ...guardArgs(),
        join(__dirname, '..', 'start', 'supervise.cjs'),
        binary,
        '-a',
        '127.0.0.1',
        '-p',
        String(this.port),
        '-js',
        '-sd',
        this.dir,
      ],
      env: process.env,
      cwd: process.cwd(),
      log: this.log,
    });
    const until = Date.now() + 20_000;
    while (!(await canConnect('127.0.0.1', this.port, 200))) {
      if (Date.now() > until) throw new Error('own nats-server did not start');
      await sleep(50);
    }
  }

  async kill(): Promise<void> {
    this.proc?.signal('SIGKILL');
    await this.proc?.exited;
  }

  async stop(): Promise<void> {
    await this.proc?.stop(5_000);
  }
}

/** Runs the scenario once and reports; throws only when the platform cannot start. */
export async function runConservation(opts: ConservationOptions): Promise<ConservationReport> {
  const log = opts.log ?? (() => undefined);
  const started = Date.now();
  const adminKey = newToken().token;
  const db = await createTestDatabase('conservation');
  const dir = mkdtempSync(join(tmpdir(), 'pim-conservation-nats-'));
  const appLines: string[] = [];
  const nats = new OwnNats(await freePort(), dir, (line) => appLines.push(line));
  const hook = await receiver(opts.receiverDelayMs ?? [0, 40]);
  let platform: RunningPlatform | undefined;
  try {
    await nats.start();
    const webhooksApp = (name: string, env: Record<string, string>, extra: Partial<AppSpec> = {}): AppSpec => ({
      name,
      kind: 'grpc',
      port: 50057,
      portEnv: 'WEBHOOKS_GRPC_PORT',
      entry: 'apps/webhooks/src/main.ts',
      migrateEntry: 'apps/webhooks/src/migrate.ts',
      env,
      ...extra,
    });
    const apps: AppSpec[] = [
      // The API replica: serves the gateway, never killed (a killed API is just a failed request).
      webhooksApp(
        'webhooks',
        { OUTBOX_RELAY: 'false', WEBHOOKS_FANOUT: 'false', WEBHOOKS_DELIVERY: 'false' },
        { addressEnv: 'WEBHOOKS_GRPC_URL', migrate: true },
      ),
      // The webhooks process under test: fan-out and delivery.
      webhooksApp('webhooks-worker', { OUTBOX_RELAY: 'false' }),
      // The producing app's relay (the producer here is the webhooks app itself: its own events).
      webhooksApp('webhooks-relay', { WEBHOOKS_FANOUT: 'false', WEBHOOKS_DELIVERY: 'false' }),
      { name: 'gateway', kind: 'http', port: 8080, portEnv: 'PORT', migrate: true },
    ];
    platform = await startPlatform({
      apps,
      databaseUrl: db.url,
      natsUrl: nats.url,
      portBase: 'free',
      log: (line) => appLines.push(line),
      env: {
        LOG_LEVEL: 'warn',
        PIM_BOOTSTRAP_API_KEY: adminKey,
        RATE_LIMIT_PER_MINUTE: '1000000',
        WEBHOOKS_ALLOWED_TARGETS: '127.0.0.0/8',
        WEBHOOKS_METRICS_PORT: '0',
        WEBHOOKS_LEASE_MS: '2000',
        WEBHOOKS_FANOUT_ACK_WAIT_MS: '2000',
        WEBHOOKS_RETRY_SCHEDULE: '200ms,500ms,1s,1s,2s,2s,2s',
        OUTBOX_MAX_BACKOFF_MS: '1000',
        SHUTDOWN_GRACE_MS: '3000',
      },
    });
    const base = platform.gatewayUrl;
    const api = async (
      method: string,
      path: string,
      body?: unknown,
    ): Promise<{ status: number; json: Record<string, unknown> }> => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
      const text = await res.text();
      return { status: res.status, json: text ? JSON.parse(text) : {} };
    };

    const sink = await api('PUT', '/webhooks', { collection: 'webhooks', url: hook.url });
    if (sink.status !== 200)
      throw new Error(`creating the receiver's webhook failed: ${sink.status} ${JSON.stringify(sink.json)}`);
    const secret = sink.json.secret as string;
    const targets: string[] = [];
    for (const collection of [
      'products',
      'orders',
      'brands',
      'families',
      'channels',
      'catalogs',
      'exports',
      'imports',
    ]) {
      const r = await api('POST', '/webhooks', {
        collection,
        url: `https://hooks.example.com/${collection}`,
        enabled: false,
      });
      if (r.status !== 201) throw new Error(`creating a target failed: ${r.status} ${JSON.stringify(r.json)}`);
      targets.push(r.json._id as string);
    }
    log(`platform up; producing ${opts.events} events with chaos`);

    // Producer: each PATCH of a target webhook is one webhooks.updated event. Retried until it answers 2xx.
    let next = 0;
    let writes = 0;
    let retries = 0;
    const rate = opts.ratePerSecond ?? 50;
    const productionStart = Date.now();
    const producer = async (lane: number) => {
      for (;;) {
        const n = next++;
        if (n >= opts.events) return;
        const due = productionStart + (n * 1000) / rate;
        if (due > Date.now()) await sleep(due - Date.now());
        const id = targets[(n + lane) % targets.length];
        for (;;) {
          const r = await api('PATCH', `/webhooks/${id}`, { body: [{ key: 'n', value: String(n) }] }).catch(() => ({
            status: 0,
            json: {},
          }));
          if (r.status >= 200 && r.status < 300) break;
          retries += 1;
          await sleep(100);
        }
        writes += 1;
        if (writes % 200 === 0) log(`  ${writes} writes`);
      }
    };
    const concurrency = opts.concurrency ?? 8;
    let producing = true;
    const production = Promise.all(Array.from({ length: concurrency }, (_, i) => producer(i))).finally(() => {
      producing = false;
    });

    const kills = { worker: 0, relay: 0, nats: 0 };
    const running = platform;
    const chaos = (async () => {
      // Each round kills all three once, in a random order, at random moments. The first round is
      // finished even when production ends first (on a loaded machine a restart can outlast it):
      // the later kills land while the backlog is delivered, which must lose nothing either.
      let round: ('worker' | 'relay' | 'nats')[] = [];
      const unkilled = () => Object.values(kills).some((n) => n === 0);
      while (producing || unkilled()) {
        await sleep(rand(opts.killEveryMs ?? [400, 1500]));
        if (!producing && !unkilled()) break;
        if (round.length === 0)
          round = (['worker', 'relay', 'nats'] as const)
            .map((v) => ({ v, k: Math.random() }))
            .sort((a, b) => a.k - b.k)
            .map((x) => x.v);
        const victim = round.shift()!;
        kills[victim] += 1;
        log(`  SIGKILL ${victim}`);
        if (victim === 'nats') {
          await nats.kill();
          await sleep(rand(opts.downMs ?? [50, 800]));
          await nats.start();
        } else {
          const app = victim === 'worker' ? 'webhooks-worker' : 'webhooks-relay';
          running.kill(app, 'SIGKILL');
          await sleep(rand(opts.downMs ?? [50, 800]));
          await running.restart(app);
        }
      }
    })();
    await Promise.all([production, chaos]);
    log(
      `produced ${writes} writes (${retries} retries); kills: ${JSON.stringify(kills)}; waiting for the last deliveries`,
    );

    // The truth: every event the producer committed.
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    const outboxIds = async () =>
      new Set(((await pg.query('SELECT id FROM webhooks.outbox')).rows as { id: string }[]).map((r) => r.id.trim()));
    let ids = await outboxIds();
    const settleUntil = Date.now() + (opts.settleTimeoutMs ?? 120_000);
    for (;;) {
      ids = await outboxIds();
      const got = new Set(hook.got.map((g) => g.webhookId));
      const missing = [...ids].filter((id) => !got.has(id));
      if (missing.length === 0 || Date.now() > settleUntil) break;
      await sleep(250);
    }
    await pg.end();

    const verifier = new Webhook(secret);
    let badSignatures = 0;
    const idsByContent = new Map<string, Set<string>>();
    for (const r of hook.got) {
      try {
        verifier.verify(r.body, r.headers);
      } catch {
        badSignatures += 1;
      }
      const p = JSON.parse(r.body) as { type: string; data: { _id: string; version: number } };
      const key = `${p.type}:${p.data._id}:${p.data.version}`;
      const set = idsByContent.get(key) ?? new Set<string>();
      set.add(r.webhookId);
      idsByContent.set(key, set);
    }
    const got = new Set(hook.got.map((g) => g.webhookId));
    return {
      writes,
      retries,
      events: ids.size,
      received: hook.got.length,
      distinct: got.size,
      missing: [...ids].filter((id) => !got.has(id)),
      duplicates: hook.got.length - got.size,
      idMismatches: [...idsByContent.values()].filter((s) => s.size > 1).length,
      badSignatures,
      kills,
      durationMs: Date.now() - started,
    };
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- last app lines ---\n${appLines.slice(-60).join('\n')}`);
  } finally {
    await platform?.stop();
    await nats.stop();
    hook.server.closeAllConnections();
    await new Promise<void>((r) => hook.server.close(() => r()));
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
