import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkEvents, deliveries } from './events.check';
import { makeFixtures } from './fixtures';
import { checkJobs } from './jobs.check';
import { runKills, type DoneKill } from './killer';
import { Ledger } from './ledger';
import type { ChaosOptions } from './options';
import { startChaosPlatform, type ChaosPlatform } from './platform';
import { Random } from './random';
import { checkApprovals, checkDeadLetters, checkOnce, checkStored } from './records.check';
import type { ChaosReport } from './report';
import { killsByKind, planKills } from './schedule';
import { settle } from './settle';
import { Truth } from './truth';
import { write } from './writer';

/**
 * Writes refused, or never answered within the write deadline (carried out or not): each is a
 * failure, since every process came back long before it.
 */
function unfinished(ledger: Ledger): string[] {
  return ledger.writes
    .filter((w) => w.result === 'refused' || w.result === 'abandoned' || w.exhausted)
    .map(
      (w) =>
        `${w.op} ${w.exhausted ? 'unanswered' : w.result} after ${w.attempts} attempts (${w.trail}): ${w.answer}${w.id ? ` (${w.id})` : ''}`,
    );
}

/** Writes the apps' last output lines to a file of the run, for reading after a failure. */
function keepLines(lines: string[], seed: number): string {
  const file = join(tmpdir(), `pim-chaos-${seed}.log`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

function byOp(ledger: Ledger): ChaosReport['writesByOp'] {
  const out: ChaosReport['writesByOp'] = {};
  for (const w of ledger.writes) {
    const by = (out[w.op] ??= {});
    by[w.result] = (by[w.result] ?? 0) + 1;
  }
  return out;
}

/** What the checks found: the report's findings. */
type Found = Pick<ChaosReport, 'events' | 'stored' | 'jobs' | 'approvals' | 'twice' | 'deadLetters' | 'failures'>;

/** Every check, once the platform settled (or did not): what broke a promise goes to `failures`. */
async function verify(
  chaos: ChaosPlatform,
  truth: Truth,
  ledger: Ledger,
  since: Date,
  kills: DoneKill[],
  unsettled: string[],
): Promise<Found> {
  const { api } = chaos;
  const failures: string[] = [];
  if (chaos.gaveUp) failures.push(`supervision gave up: ${chaos.gaveUp}`);
  for (const k of kills.filter((x) => x.error)) failures.push(`nats-server did not come back: ${k.error}`);
  failures.push(...unsettled.map((u) => `did not settle: ${u}`));
  failures.push(...unfinished(ledger));
  failures.push(...ledger.serverErrors.map((e) => `a 500: ${e}`));
  const all = await truth.events(new Date(0));
  const events = checkEvents(all, since, deliveries(chaos.receiver.requests), ledger, failures);
  // A stopped platform answers nothing: what needs the API is not checked then (the give-up is the failure).
  if (chaos.gaveUp)
    return {
      events,
      stored: 0,
      jobs: { imports: ledger.imports.length, exports: ledger.exports.length, partialFiles: 0 },
      approvals: { approved: 0, rejected: 0, pending: 0 },
      twice: [],
      deadLetters: 0,
      failures,
    };
  const stored = await checkStored(api, ledger, failures);
  const jobs = await checkJobs(api, ledger, all, join(chaos.dataDir, 'files'), failures);
  const approvals = await checkApprovals(api, all, failures);
  const twice = await checkOnce(api, ledger, failures);
  const deadLetters = await checkDeadLetters(api, failures);
  failures.push(...twice.map((t) => `carried out twice: ${t}`));
  return { events, stored, jobs, approvals, twice, deadLetters, failures };
}

/**
 * One chaos run: the platform started with its own nats-server, the fixtures made, then writes
 * through the API for `durationMs` while the planned SIGKILLs fall on apps and nats-server; then
 * the platform settles and every promise is checked. Throws only when the platform cannot start.
 */
export async function runChaos(opts: ChaosOptions): Promise<ChaosReport> {
  const log = opts.log;
  const random = new Random(opts.seed);
  const began = Date.now();
  log(`chaos seed ${opts.seed} (replay: CHAOS_SEED=${opts.seed}); starting the platform`);
  const chaos = await startChaosPlatform(opts, random);
  const { platform, api } = chaos;
  const ledger = new Ledger();
  let truth: Truth | undefined;
  try {
    truth = await Truth.open(chaos.db.url);
    const started = Date.now();
    const fixtures = await makeFixtures(api, chaos.receiver.url, opts.exportProducts);
    const since = await truth.now();
    const plan = planKills(random.fork(2), {
      durationMs: opts.durationMs,
      everyMs: opts.killEveryMs,
      replicas: Object.fromEntries(Object.entries(platform.replicas).map(([app, rs]) => [app, rs.map((r) => r.name)])),
      allReplicasChance: opts.allReplicasChance,
    });
    log(
      `platform up in ${((started - began) / 1000).toFixed(1)} s; ${plan.length} kills planned over ${opts.durationMs / 1000} s`,
    );

    const chaosStart = Date.now();
    let stopWriting = () => undefined as void;
    const stop = new Promise<void>((r) => (stopWriting = r));
    const writing = write(api, fixtures, ledger, opts, random.fork(3), stop);
    const timer = setTimeout(stopWriting, opts.durationMs);
    // A gateway is killed while it carries out a POST with an Idempotency-Key (if one comes within 3 s).
    const gateways = platform.replicas.gateway.map((r) => r.name);
    const kills = await runKills(platform, plan, log, async (k) => {
      if (k.kind !== 'gateway') return;
      const which = k.target === 'gateway' ? gateways.map((_, i) => i) : [gateways.indexOf(k.target)];
      await api.keyedRequestIn(which, 3_000);
    });
    await writing;
    clearTimeout(timer);
    const settleStart = Date.now();
    log(`chaos over: ${ledger.writes.length} writes; settling`);
    const unsettled = await settle(platform, truth, chaos.receiver, since, opts.settleTimeoutMs, () => chaos.gaveUp);
    const checkStart = Date.now();
    log(unsettled.length > 0 ? `did not settle: ${unsettled.join('; ')}` : 'settled; checking');

    const found = await verify(chaos, truth, ledger, since, kills, unsettled);
    const ended = Date.now();
    return {
      seed: opts.seed,
      durations: {
        start: started - began,
        setup: chaosStart - started,
        chaos: settleStart - chaosStart,
        settle: checkStart - settleStart,
        check: ended - checkStart,
        total: ended - began,
      },
      kills,
      killsByKind: killsByKind(kills),
      restarts: platform.restarts(),
      writes: ledger.counts(),
      writesByOp: byOp(ledger),
      retries: ledger.writes.reduce((n, w) => n + w.attempts - 1, 0),
      lostAnswers: ledger.writes.filter((w) => w.result === 'applied').map((w) => `${w.op} (${w.trail})`),
      slowest: [...ledger.writes]
        .sort((a, b) => (b.ms ?? 0) - (a.ms ?? 0))
        .slice(0, 3)
        .map((w) => `${w.op} ${((w.ms ?? 0) / 1000).toFixed(1)} s (${w.trail ?? w.attempts})`),
      ...found,
      unsettled,
      logFile: keepLines(chaos.lines, opts.seed),
    } satisfies ChaosReport;
  } catch (err) {
    throw new Error(`${(err as Error).stack}\n--- last lines ---\n${chaos.lines.slice(-60).join('\n')}`);
  } finally {
    await truth?.close();
    await chaos.close();
  }
}
