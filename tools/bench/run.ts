// `npm run bench`: the webhook delivery benchmark, written to docs/benchmarks.md.
//   1. Throughput: raw undici POSTs to a local receiver (the baseline) vs. deliveries/s of the
//      webhooks app draining a backlog to the same receiver, in the same run.
//   2. Latency: events produced through the webhooks app's API at a fixed rate; event (its
//      occurred_at) → first attempt (arrival at the receiver), p50/p99.
//   3. Conservation at full size (2,000 events, SIGKILLs of worker, relay and NATS).
// Flags: --quick (smaller sizes, for trying it out), --no-write (print only), --skip-conservation
// (the last conservation section of docs/benchmarks.md is kept). Environment: BENCH_MARKS=1 prints
// the drain's timestamps and the worker's queue metrics; BENCH_WORKER_NODE_OPTIONS is the worker's
// NODE_OPTIONS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it).
// `npm run bench -- catalog` runs the catalog benchmark (tools/bench/catalog.ts) instead,
// `npm run bench -- orders` the orders benchmark (tools/bench/orders.ts),
// `npm run bench -- imports` the imports benchmark (tools/bench/imports.ts),
// `npm run bench -- publisher` the publisher benchmark (tools/bench/publisher.ts),
// `npm run bench -- relay` the outbox relay benchmark (tools/bench/relay.ts),
// `npm run bench -- soak` the soak benchmark (tools/bench/soak.ts), and
// `npm run bench -- platform` the local platform's start and memory (tools/bench/platform.ts).
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, release, totalmem, tmpdir, type as osType } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { Client } from 'pg';
import { Agent, request } from 'undici';
import { webhooks as pb } from '@pim/contracts';
import { buildEnvelope } from '@pim/events';
import { newId } from '@pim/ids';
import { COLLECTIONS } from '@pim/resources';
import { createRpcClient } from '@pim/rpc';
import { createTestDatabase } from '@pim/testing';
import { startPlatform, type RunningPlatform } from '../start';
import { findNatsServer } from '../start/nats';
import { freePort } from '../start/ports';
import { runConservation, type ConservationReport } from './conservation';
import { runCatalogBench } from './catalog';
import { runExportsBench } from './exports';
import { runImportsBench } from './imports';
import { runOrdersBench } from './orders';
import { runPlatformBench } from './platform';
import { runPublisherBench } from './publisher';
import { runRelayBench } from './relay';
import { runSoakBench } from './soak';
import { mergeReport, startReceiver, type LocalReceiver } from './shared';

const ROOT = join(__dirname, '..', '..');
const args = new Set(process.argv.slice(2));
const quick = args.has('--quick');
const SIZES = {
  raw: quick ? 3_000 : 20_000,
  backlog: quick ? 6_000 : 10_000,
  rate: 200,
  latencySeconds: quick ? 5 : 20,
  conservation: quick ? 300 : 2_000,
  rounds: quick ? 1 : 3,
};
const CONCURRENCY = 64;
// USER_HZ of /proc times (100 on every Linux we run on).
const CLOCK_TICKS = 100;
// Requests (raw loop) and deliveries (app) run before each measured part, so neither measures cold code.
const WARMUP = 500;
const THROUGHPUT_COLLECTIONS = ['products', 'orders', 'brands', 'families'];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const say = (line: string) => process.stdout.write(`${line}\n`);

interface Hit {
  at: number;
  id: string;
  eventAt: number | null;
}

/** The webhook receiver child process, with the requests it got. */
async function startHookReceiver(): Promise<
  LocalReceiver & {
    stats(): Promise<Hit[]>;
    reset(): Promise<void>;
  }
> {
  const receiver = await startReceiver('receiver.child.ts', '/hook');
  return {
    ...receiver,
    stats: async () => (await (await fetch(`${receiver.base}/_stats`)).json()) as Hit[],
    reset: async () => {
      await fetch(`${receiver.base}/_reset`, { method: 'POST' });
    },
  };
}

/** Runs `total` calls of fn with at most `concurrency` in flight; resolves with the elapsed ms. */
async function pool(total: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        await fn(i);
      }
    }),
  );
  return performance.now() - started;
}

/** CPU time (ms) a process has used so far (Linux /proc; 0 where unreadable). */
function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** Processes whose environment holds `entry` (e.g. the worker's own metrics port). */
function pidsWithEnv(entry: string): number[] {
  if (!existsSync('/proc')) return [];
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(entry)) out.push(Number(name));
    } catch {
      // gone, or not ours
    }
  }
  return out;
}

/** Busy CPU time (ms) of the whole machine so far, all cores (Linux /proc/stat). */
function machineBusyMs(): number {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal: busy = all but idle and iowait.
    return ((f[0] + f[1] + f[2] + f[5] + f[6] + f[7]) * 1000) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** CPU used by each part of the delivery benchmark between two snapshots. */
type CpuSplit = Record<'app' | 'postgres' | 'receiver' | 'client' | 'machine', number>;

/** One round of the throughput measurement: a raw loop, then a drain. */
interface Round {
  rawRate: number;
  /** CPU of one raw POST (client + receiver), µs. */
  rawCpuUs: number;
  /** The durable baseline: the same POSTs, each outcome then recorded by an UPDATE batched 100 rows a statement. */
  durableRate: number;
  deliveryRate: number;
  ratio: number;
  drainMs: number;
  recordedMs: number;
  released: number;
  lastAt: number;
  cpu: CpuSplit;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function samplePayload(i: number): string {
  const envelope = buildEnvelope({
    id: newId(),
    source: 'catalog',
    collection: 'products',
    action: 'updated',
    data: {
      _id: newId(),
      code: `SKU-${i}`,
      name: { en: 'Office chair', pt: 'Cadeira de escritório' },
      price: 129.9,
      enabled: true,
      version: 3,
    },
    occurredAt: new Date(),
  });
  return JSON.stringify({ type: envelope.type, timestamp: envelope.occurred_at, data: envelope.data });
}

function machine(): Record<string, string> {
  const cpu = cpus();
  const tryRun = (cmd: string, a: string[]) => {
    try {
      return execFileSync(cmd, a, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
        .trim()
        .split('\n')[0];
    } catch {
      return 'unknown';
    }
  };
  return {
    cpu: `${cpu.length} × ${cpu[0]?.model ?? 'unknown'}`,
    memory: `${Math.round(totalmem() / 2 ** 30)} GiB`,
    os: `${osType()} ${release()}`,
    node: process.version,
    postgres: tryRun('psql', ['-h', '127.0.0.1', '-U', 'postgres', '-Atc', 'SHOW server_version']),
    nats: tryRun(findNatsServer() ?? 'nats-server', ['--version']),
  };
}

async function main(): Promise<void> {
  const info = machine();
  say(`machine: ${JSON.stringify(info)}`);
  const receiver = await startHookReceiver();
  const db = await createTestDatabase('bench');
  const dataDir = mkdtempSync(join(tmpdir(), 'pim-bench-'));
  let platform: RunningPlatform | undefined;
  const appLines: string[] = [];
  try {
    // 1a. Baseline: raw undici POSTs, keep-alive, same concurrency the app uses.
    const agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 30_000 });
    const body = samplePayload(0);
    const headers = {
      'content-type': 'application/json',
      'webhook-id': newId(),
      'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      'webhook-signature': 'v1,' + 'x'.repeat(44),
    };
    await pool(WARMUP, CONCURRENCY, async () => {
      const r = await request(receiver.url, { method: 'POST', body, headers, dispatcher: agent });
      await r.body.text();
    });
    /** One measurement of the raw loop (the same agent, kept alive, for every round). */
    const rawCpu = () => cpuMs(process.pid) + (receiver.child.pid ? cpuMs(receiver.child.pid) : 0);
    const measureRaw = async (): Promise<{ rate: number; cpuUs: number }> => {
      await receiver.reset();
      const cpuBefore = rawCpu();
      const rawMs = await pool(SIZES.raw, CONCURRENCY, async () => {
        const r = await request(receiver.url, { method: 'POST', body, headers, dispatcher: agent });
        await r.body.text();
      });
      const cpuUs = ((rawCpu() - cpuBefore) * 1000) / SIZES.raw;
      await receiver.reset();
      const rate = SIZES.raw / (rawMs / 1000);
      say(
        `raw undici: ${SIZES.raw} POSTs in ${rawMs.toFixed(0)} ms = ${rate.toFixed(0)}/s (${cpuUs.toFixed(0)} µs CPU each, client + receiver)`,
      );
      return { rate, cpuUs };
    };
    const firstRaw = await measureRaw();

    // 1b. The durable baseline: the least a durable delivery costs — the same POSTs, 64 in flight
    // over keep-alive, each outcome then recorded in Postgres by an UPDATE batched 100 rows a statement.
    const durableDb = new Client({ connectionString: db.url });
    await durableDb.connect();
    await durableDb.query(
      `CREATE TABLE bench_durable (id char(24) PRIMARY KEY, status text NOT NULL, attempts int NOT NULL, completed_at timestamptz)`,
    );
    const measureDurable = async (): Promise<number> => {
      await durableDb.query('TRUNCATE bench_durable');
      const ids = Array.from({ length: SIZES.raw }, () => newId());
      await durableDb.query(
        `INSERT INTO bench_durable (id, status, attempts) SELECT unnest($1::char(24)[]), 'pending', 0`,
        [ids],
      );
      await receiver.reset();
      let done: string[] = [];
      const writes: Promise<unknown>[] = [];
      const flush = () => {
        const batch = done;
        done = [];
        writes.push(
          durableDb.query(
            `UPDATE bench_durable d SET status = 'delivered', attempts = d.attempts + 1, completed_at = now() FROM unnest($1::char(24)[]) AS x(id) WHERE d.id = x.id`,
            [batch],
          ),
        );
      };
      let next = 0;
      const started = performance.now();
      await pool(SIZES.raw, CONCURRENCY, async () => {
        const id = ids[next++];
        const r = await request(receiver.url, { method: 'POST', body, headers, dispatcher: agent });
        await r.body.text();
        done.push(id);
        if (done.length >= 100) flush();
      });
      if (done.length > 0) flush();
      await Promise.all(writes);
      const rate = SIZES.raw / ((performance.now() - started) / 1000);
      await receiver.reset();
      say(`durable baseline: ${SIZES.raw} POSTs, outcomes recorded 100 a statement = ${rate.toFixed(0)}/s`);
      return rate;
    };

    // The webhooks app as `npm start` runs it (own nats-server with file storage), loopback allowed.
    const metricsPort = await freePort();
    platform = await startPlatform({
      // The producing side (API + its outbox relay) and the webhooks worker (fan-out + delivery) run
      // as separate processes, as a producing app and the webhooks app would.
      apps: [
        {
          name: 'webhooks',
          kind: 'grpc',
          port: 50057,
          addressEnv: 'WEBHOOKS_GRPC_URL',
          portEnv: 'WEBHOOKS_GRPC_PORT',
          migrate: true,
          env: { WEBHOOKS_FANOUT: 'false', WEBHOOKS_DELIVERY: 'false', WEBHOOKS_METRICS_PORT: '0' },
        },
        {
          name: 'webhooks-worker',
          kind: 'grpc',
          port: 50058,
          portEnv: 'WEBHOOKS_GRPC_PORT',
          entry: 'apps/webhooks/src/main.ts',
          env: {
            OUTBOX_RELAY: 'false',
            WEBHOOKS_METRICS_PORT: String(metricsPort),
            // e.g. BENCH_WORKER_NODE_OPTIONS=--cpu-prof to profile the delivery worker.
            ...(process.env.BENCH_WORKER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_WORKER_NODE_OPTIONS } : {}),
          },
        },
      ],
      databaseUrl: db.url,
      dataDir,
      portBase: 'free',
      log: (line) => appLines.push(line),
      env: { LOG_LEVEL: 'warn', WEBHOOKS_ALLOWED_TARGETS: '127.0.0.0/8' },
    });
    const client = createRpcClient(pb.WebhooksServiceClient, {
      service: 'webhooks',
      address: `127.0.0.1:${platform.ports.webhooks}`,
      deadlineMs: 10_000,
    });
    const pg = new Client({ connectionString: db.url });
    await pg.connect();

    // 1b. Deliveries/s: a backlog held back (webhooks disabled), released at once.
    const targets: { id: string; collection: string }[] = [];
    for (const collection of THROUGHPUT_COLLECTIONS) {
      const r = await client.createWebhook({ webhook: { collection, url: receiver.url } });
      targets.push({ id: r.webhook!.id, collection });
    }
    /**
     * Queues `count` deliveries while their webhooks are disabled, releases them at once and waits
     * until the receiver has every request and every outcome is recorded.
     */
    const workerPids = pidsWithEnv(`WEBHOOKS_METRICS_PORT=${metricsPort}`);
    const { rows: backendRows } = await pg.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
    );
    const cpuNow = (): CpuSplit => ({
      app: workerPids.reduce((t, p) => t + cpuMs(p), 0),
      postgres: backendRows.reduce((t, r) => t + cpuMs(r.pid), 0),
      receiver: receiver.child.pid ? cpuMs(receiver.child.pid) : 0,
      client: cpuMs(process.pid),
      machine: machineBusyMs(),
    });
    const drainBacklog = async (
      count: number,
    ): Promise<{ drainMs: number; recordedMs: number; released: number; lastAt: number; cpu: CpuSplit }> => {
      await pg.query(`UPDATE webhooks.webhooks SET enabled = false`);
      const before = (await pg.query(`SELECT count(*)::int AS n FROM webhooks.deliveries WHERE status = 'succeeded'`))
        .rows[0].n as number;
      for (let start = 0; start < count; start += 1_000) {
        const events = Array.from({ length: Math.min(1_000, count - start) }, (_, k) => {
          const i = start + k;
          const t = targets[i % targets.length];
          return {
            webhookId: t.id,
            envelope: buildEnvelope({
              id: newId(),
              source: 'bench',
              collection: t.collection,
              action: 'updated',
              data: { _id: newId(), code: `SKU-${i}`, name: { en: 'Office chair' }, version: 1 },
              occurredAt: new Date(),
            }),
          };
        });
        await pg.query(
          `INSERT INTO webhooks.inbox (event_id, type, collection, source, occurred_at, envelope, received_at)
           SELECT e.envelope->>'id', e.envelope->>'type', e.envelope->>'collection', 'bench', (e.envelope->>'occurred_at')::timestamptz, e.envelope, now()
             FROM jsonb_to_recordset($1::jsonb) AS e(envelope jsonb)`,
          [JSON.stringify(events.map((e) => ({ envelope: e.envelope })))],
        );
        await pg.query(
          `INSERT INTO webhooks.deliveries ("_id", webhook_id, event_id, event_type, status, next_attempt_at, event_occurred_at, created_at, updated_at)
           SELECT d.id, d.webhook_id, d.event_id, i.type, 'pending', now(), now(), now(), now()
             FROM jsonb_to_recordset($1::jsonb) AS d(id char(24), webhook_id char(24), event_id char(24))
             JOIN webhooks.inbox i ON i.event_id = d.event_id`,
          [JSON.stringify(events.map((e) => ({ id: newId(), webhook_id: e.webhookId, event_id: e.envelope.id })))],
        );
      }
      await receiver.reset();
      const cpuBefore = cpuNow();
      const released = Date.now();
      await pg.query(`UPDATE webhooks.webhooks SET enabled = true; NOTIFY pim_webhooks_deliveries`);
      for (;;) {
        const n = (await receiver.stats()).length;
        if (n >= count) break;
        if (Date.now() - released > 300_000) throw new Error(`backlog not drained: ${n}/${count}`);
        await sleep(100);
      }
      const cpuAfter = cpuNow();
      const lastAt = Math.max(...(await receiver.stats()).map((h) => h.at));
      // The drain is only over when every outcome is written.
      for (;;) {
        const { rows } = await pg.query(
          `SELECT count(*)::int AS n FROM webhooks.deliveries WHERE status = 'succeeded'`,
        );
        if (rows[0].n - before >= count) break;
        await sleep(100);
      }
      const cpu = Object.fromEntries(
        Object.entries(cpuAfter).map(([k, v]) => [k, v - cpuBefore[k as keyof CpuSplit]]),
      ) as CpuSplit;
      return { drainMs: lastAt - released, recordedMs: Date.now() - released, released, lastAt, cpu };
    };
    // Warm-up, as the raw loop gets one: the worker's first deliveries run cold code and open its connections.
    await drainBacklog(WARMUP);
    // Rounds of (raw loop, drain): the first raw loop ran before the platform started; the next
    // ones run with it up and idle. The ratio reported is the median round's: one round on a
    // shared machine is not a measurement to believe.
    const rounds: Round[] = [];
    for (let k = 0; k < SIZES.rounds; k++) {
      const raw = k === 0 ? firstRaw : await measureRaw();
      const durableRate = await measureDurable();
      const drained = await drainBacklog(SIZES.backlog);
      const rate = SIZES.backlog / (drained.drainMs / 1000);
      rounds.push({
        rawRate: raw.rate,
        rawCpuUs: raw.cpuUs,
        durableRate,
        deliveryRate: rate,
        ratio: rate / raw.rate,
        ...drained,
      });
      say(
        `round ${k + 1}: raw ${raw.rate.toFixed(0)}/s, durable ${durableRate.toFixed(0)}/s, deliveries ${rate.toFixed(0)}/s, ratio ${(rate / raw.rate).toFixed(2)} (÷ durable ${(rate / durableRate).toFixed(2)})`,
      );
    }
    await agent.close();
    await durableDb.end();
    const median = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(rounds.length / 2)];
    const { rawRate, rawCpuUs, durableRate, deliveryRate, drainMs, recordedMs, released, lastAt, cpu } = median;
    if (process.env.BENCH_MARKS) {
      say(`marks: released ${released} last ${lastAt} recorded ${released + recordedMs}`);
      const m = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text().catch(() => '');
      say(
        m
          .split('\n')
          .filter((l) => /^pim_webhooks_(queue_(seconds|batch_size)|attempt_duration_seconds)_(sum|count)/.test(l))
          .join('\n'),
      );
    }
    say(
      `cpu during the drain (ms): ${JSON.stringify(Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, Math.round(v)])))}`,
    );
    say(
      `deliveries: ${SIZES.backlog} in ${drainMs} ms = ${deliveryRate.toFixed(0)}/s (all recorded after ${recordedMs} ms); ratio ${(deliveryRate / rawRate).toFixed(2)}`,
    );

    // 2. Latency at a fixed event rate: writes through the app's API (outbox → relay → NATS → fan-out → delivery).
    const sink = await client.createWebhook({ webhook: { collection: 'webhooks', url: receiver.url } });
    // Many writers on few rows would queue on row locks; spread the writes over a webhook per collection.
    const writeTargets = [...targets];
    for (const c of COLLECTIONS.map((x) => x.name).filter(
      (n) => n !== 'webhooks' && !THROUGHPUT_COLLECTIONS.includes(n),
    )) {
      const r = await client.createWebhook({
        webhook: { collection: c, url: 'https://hooks.example.com/x', enabled: false },
      });
      writeTargets.push({ id: r.webhook!.id, collection: c });
    }
    // Let the deliveries of those creations arrive before the measured window starts.
    await sleep(1_500);
    await receiver.reset();
    const total = SIZES.rate * SIZES.latencySeconds;
    const started = Date.now();
    let failedWrites = 0;
    const inFlight = new Set<Promise<void>>();
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / SIZES.rate;
      if (due > Date.now()) await sleep(due - Date.now());
      const t = writeTargets[i % writeTargets.length];
      const p = client
        .patchWebhook({ id: t.id, patch: { body: [{ key: 'n', value: String(i) }] } })
        .then(
          () => undefined,
          () => void (failedWrites += 1),
        )
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
    await Promise.all(inFlight);
    const produceMs = Date.now() - started;
    const expected = total - failedWrites;
    const until = Date.now() + 60_000;
    let latencyHits: Hit[] = [];
    while (Date.now() < until) {
      latencyHits = (await receiver.stats()).filter((h) => h.eventAt !== null);
      if (latencyHits.length >= expected) break;
      await sleep(200);
    }
    const firstById = new Map<string, Hit>();
    for (const h of latencyHits) if (!firstById.has(h.id)) firstById.set(h.id, h);
    const lags = [...firstById.values()].map((h) => h.at - (h.eventAt as number)).sort((a, b) => a - b);
    const lat = {
      p50: percentile(lags, 50),
      p99: percentile(lags, 99),
      max: lags[lags.length - 1] ?? NaN,
      n: lags.length,
    };
    say(
      `latency at ${SIZES.rate} events/s (${total} events in ${produceMs} ms, ${failedWrites} failed writes): p50 ${lat.p50} ms, p99 ${lat.p99} ms, max ${lat.max} ms over ${lat.n}`,
    );
    // Where the time goes, stage by stage, from the rows each stage wrote.
    const { rows: stageRows } = await pg.query(
      `SELECT percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM o.published_at - o.occurred_at) * 1000) AS relay,
              percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM i.received_at - o.published_at) * 1000) AS fanout,
              percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM a.started_at - i.received_at) * 1000) AS claim
         FROM webhooks.outbox o
         JOIN webhooks.inbox i ON i.event_id = o.id
         JOIN webhooks.deliveries d ON d.event_id = o.id AND d.webhook_id = $1
         JOIN webhooks.delivery_attempts a ON a.delivery_id = d."_id" AND a.number = 1
        WHERE o.occurred_at >= to_timestamp($2 / 1000.0)`,
      [sink.webhook!.id, started],
    );
    const stages = stageRows[0] as Record<'relay' | 'fanout' | 'claim', number[] | null>;
    say(`stages (p50/p99 ms): ${JSON.stringify(stages)}`);
    const metricsText = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text().catch(() => '');
    client.close();
    await pg.end();
    await platform.stop();
    platform = undefined;

    // 3. Conservation at full size.
    let conservation: ConservationReport | undefined;
    if (!args.has('--skip-conservation')) {
      say(`conservation: ${SIZES.conservation} events with SIGKILLs`);
      conservation = await runConservation({
        events: SIZES.conservation,
        concurrency: 8,
        ratePerSecond: 40,
        log: (l) => say(`  ${l}`),
      });
      say(`conservation: ${JSON.stringify({ ...conservation, missing: conservation.missing.length })}`);
    }

    const ratio = deliveryRate / rawRate;
    const docPath = join(ROOT, 'docs', 'benchmarks.md');
    const doc = existsSync(docPath) ? readFileSync(docPath, 'utf8') : '';
    // Without a conservation run, the last one's section stays as it was.
    const keptConservation = conservation ? '' : sectionOf(doc, '## Conservation');
    const report = renderReport({
      info,
      rawRate,
      rawCpuUs,
      durableRate,
      deliveryRate,
      ratio,
      drainMs,
      recordedMs,
      cpu,
      rounds,
      lat,
      stages,
      total,
      produceMs,
      failedWrites,
      conservation,
      keptConservation,
      metricsText,
    });
    if (!args.has('--no-write')) {
      // Every other section is kept where it is: each benchmark rewrites only its own part.
      writeFileSync(docPath, mergeReport(doc, report));
      say('written to docs/benchmarks.md');
    } else {
      say(report);
    }
    const ok =
      ratio >= 0.5 &&
      lat.p99 <= 250 &&
      (!conservation || (conservation.missing.length === 0 && conservation.idMismatches === 0));
    say(ok ? 'targets met' : 'targets NOT met');
    process.exitCode = ok ? 0 : 1;
  } catch (err) {
    say(`bench failed: ${(err as Error).stack ?? err}\n${appLines.slice(-40).join('\n')}`);
    process.exitCode = 1;
  } finally {
    await platform?.stop();
    receiver.child.kill('SIGTERM');
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

interface ReportInput {
  info: Record<string, string>;
  rawRate: number;
  durableRate: number;
  deliveryRate: number;
  ratio: number;
  drainMs: number;
  recordedMs: number;
  lat: { p50: number; p99: number; max: number; n: number };
  stages: Record<'relay' | 'fanout' | 'claim', number[] | null>;
  total: number;
  produceMs: number;
  failedWrites: number;
  conservation?: ConservationReport;
  /** The previous conservation section, used when this run skipped it. */
  keptConservation: string;
  cpu: CpuSplit;
  rawCpuUs: number;
  rounds: Round[];
  metricsText: string;
}

/** The section of a markdown document that starts with `heading` (up to the next `## `), or ''. */
function sectionOf(doc: string, heading: string): string {
  const start = doc.indexOf(`\n${heading}`);
  if (start < 0) return '';
  const rest = doc.indexOf('\n## ', start + 1);
  return `${doc.slice(start + 1, rest < 0 ? undefined : rest).trimEnd()}\n`;
}

const fmt = (v: number[] | null) => (v ? v.map((x) => x.toFixed(1)).join(' / ') : 'n/a');

function renderReport(r: ReportInput): string {
  const ms = (v: number) => Math.round(v);
  const perDelivery = (v: number) => Math.round((v * 1000) / SIZES.backlog);
  const mark = (ok: boolean) => (ok ? 'met' : '**not met**');
  const c = r.conservation;
  const attempts = r.metricsText
    .split('\n')
    .filter((l) => l.startsWith('pim_webhooks_attempts_total'))
    .join('; ');
  return `# Benchmarks

Produced by \`npm run bench\` (\`tools/bench/run.ts\`) on ${new Date().toISOString().slice(0, 10)}${quick ? ' with --quick (reduced sizes)' : ''}.
Every number is measured in one run on one machine; the ratios compare against a baseline measured
in the same run, so they carry over to other machines better than the absolute numbers.

## Machine

| | |
|---|---|
| CPU | ${r.info.cpu} |
| Memory | ${r.info.memory} |
| OS | ${r.info.os} |
| Node | ${r.info.node} |
| PostgreSQL | ${r.info.postgres} (local, default settings) |
| NATS | ${r.info.nats} (started by the bench, JetStream file storage) |

Postgres, NATS, the webhooks app, the receiver (its own process) and the bench client all share
these cores.

## Webhook delivery

| measure | result | target | |
|---|---|---|---|
| raw undici POSTs to the local receiver (keep-alive, ${CONCURRENCY} in flight, ${SIZES.raw} requests) | ${r.rawRate.toFixed(0)}/s | baseline | |
| deliveries/s: a backlog of ${SIZES.backlog} deliveries (4 webhooks × 16 in flight) drained by the webhooks app | ${r.deliveryRate.toFixed(0)}/s (${r.drainMs} ms; every outcome recorded after ${r.recordedMs} ms) | | |
| deliveries/s ÷ raw undici | **${r.ratio.toFixed(2)}** | ≥ 0.5 | ${mark(r.ratio >= 0.5)} |
| durable baseline: the same POSTs, each outcome then recorded by an UPDATE batched 100 rows a statement | ${r.durableRate.toFixed(0)}/s | baseline | |
| deliveries/s ÷ the durable baseline | **${(r.deliveryRate / r.durableRate).toFixed(2)}** | ≥ 0.8 | ${mark(r.deliveryRate / r.durableRate >= 0.8)} |
| event → first attempt, p50 at ${SIZES.rate} events/s | **${r.lat.p50} ms** | | |
| event → first attempt, p99 at ${SIZES.rate} events/s | **${r.lat.p99} ms** (max ${r.lat.max} ms, ${r.lat.n} events) | ≤ 250 ms | ${mark(r.lat.p99 <= 250)} |

How it is measured:

- **The durable baseline**: the least a durable delivery costs. The bench process sends the same POSTs as
  the raw loop (the same agent, ${CONCURRENCY} in flight) for rows of a table of its own, and records each
  outcome in Postgres with an UPDATE batched 100 rows a statement (status, attempts, completed_at), the
  time running until the last UPDATE returned: what any delivery system that keeps its outcomes pays at
  the least. Measured in every round, after the raw loop and before the drain.
- **Deliveries/s**: the deliveries exist (inbox + pending rows) while their webhooks are disabled;
  enabling them releases the backlog. The time runs from the release to the last request's arrival
  at the receiver. ${
    r.rounds.length > 1
      ? `The run measures ${r.rounds.length} rounds of (raw loop, drain), the first raw loop before the
  platform started, the others with it up and idle; the table shows the round with the median ratio
  (all rounds: ${r.rounds.map((x) => `${x.rawRate.toFixed(0)}/s → ${x.deliveryRate.toFixed(0)}/s = ${x.ratio.toFixed(2)}, ÷ durable ${x.durableRate.toFixed(0)}/s = ${(x.deliveryRate / x.durableRate).toFixed(2)}`).join('; ')}).`
      : ''
  } Each delivery is a full one: claimed with a lease, signed (HMAC-SHA256), POSTed
  through the SSRF-guarded keep-alive agent, its attempt and outcome written to Postgres. A first
  backlog of ${WARMUP} deliveries is drained the same way before, unmeasured, as the raw loop gets
  ${WARMUP} requests before its measurement: neither measures cold code or new connections.
- CPU used from the release until the bench saw the last request (Linux /proc): the webhooks
  worker ${ms(r.cpu.app)} ms (${perDelivery(r.cpu.app)} µs per delivery), its Postgres backends
  ${ms(r.cpu.postgres)} ms (${perDelivery(r.cpu.postgres)} µs), the receiver ${ms(r.cpu.receiver)} ms
  (${perDelivery(r.cpu.receiver)} µs), the bench client ${ms(r.cpu.client)} ms; the machine as a whole
  was busy ${ms(r.cpu.machine)} ms, other processes included. A raw POST cost ${r.rawCpuUs.toFixed(0)} µs of CPU (bench
  client + receiver); a delivery ${perDelivery(r.cpu.app + r.cpu.postgres + r.cpu.receiver)} µs (worker + its Postgres + receiver): with both
  loops bound by the same two cores, that alone caps the ratio near
  ${(r.rawCpuUs / (((r.cpu.app + r.cpu.postgres + r.cpu.receiver) * 1000) / SIZES.backlog)).toFixed(2)}.
- **Event → first attempt**: ${r.total} writes through the webhooks app's gRPC API at ${SIZES.rate}/s
  (${r.produceMs} ms, ${r.failedWrites} failed), served by a replica that runs the API and its outbox
  relay (the producing app); each write's event goes outbox → relay → JetStream → fan-out →
  delivery, both in a second replica (the webhooks worker), to a webhook on the \`webhooks\` collection. Latency is the receiver's arrival
  time minus the event's \`timestamp\` (its \`occurred_at\`, taken in the writing transaction).
- Where the time goes (p50 / p99, ms, from the timestamps each stage wrote): commit → published by
  the relay ${fmt(r.stages.relay)}; published → recorded by the fan-out ${fmt(r.stages.fanout)}; recorded → first
  attempt started ${fmt(r.stages.claim)}; the rest is the request itself.
- Attempt counters from the app's /metrics at the end: ${attempts || 'n/a'}.

Reading the throughput ratio: a raw POST costs the client one request; a delivery costs the same
request plus three row writes in Postgres (the claim that leases it, the attempt, the outcome), on
the same cores that also run Postgres and the receiver, so the ratio depends on how busy those
cores are with anything else: on a 2-core machine shared with other work it moves a lot from run
to run (repeat it before believing one number). What was done for it: the worker goes to Postgres
once per burst: the outcomes of the requests that finished and the claim of as many deliveries as
slots are free travel as one transaction in one round trip (a multi-statement query of statements
prepared once per connection, whose generic plans are kept on indexes), and a second such cycle
may run while the first is on its way; outcomes are read by primary key; per attempt one abort
controller instead of \`AbortSignal.any\`, answers read by stream events, success log lines built
only when logged. Before that: claims by primary key in batches with no bitmap scans (they never
prune dead index entries of the churning queue), asynchronous commit for the worker's own
bookkeeping, no foreign key on attempts, HMAC keys cached. Replicas on more cores scale it: claims
serialize only for a few milliseconds each.

${
  c
    ? `## Conservation (full size)

${c.writes} writes through the REST API (${c.retries} retried) while the webhooks worker, the relay and
a NATS server started by the run were SIGKILLed and restarted at random moments
(kills: worker ${c.kills.worker}, relay ${c.kills.relay}, NATS ${c.kills.nats}).

| | |
|---|---|
| events in the producer's outbox | ${c.events} |
| requests received | ${c.received} (${c.duplicates} duplicates) |
| distinct webhook-ids received | ${c.distinct} |
| events never received | **${c.missing.length}** |
| events whose copies had different webhook-ids | **${c.idMismatches}** |
| signatures rejected by \`standardwebhooks\` | ${c.badSignatures} |
| duration | ${(c.durationMs / 1000).toFixed(1)} s |
`
    : r.keptConservation
}`;
}

if (args.has('catalog')) void runCatalogBench({ write: !args.has('--no-write') });
else if (args.has('orders')) void runOrdersBench({ write: !args.has('--no-write') });
else if (args.has('imports')) void runImportsBench({ write: !args.has('--no-write') });
else if (args.has('exports')) void runExportsBench({ write: !args.has('--no-write') });
else if (args.has('publisher')) void runPublisherBench({ write: !args.has('--no-write') });
else if (args.has('relay')) void runRelayBench({ write: !args.has('--no-write'), quick });
else if (args.has('soak')) void runSoakBench(process.argv.slice(2));
else if (args.has('platform')) void runPlatformBench(process.argv.slice(2));
else void main();
