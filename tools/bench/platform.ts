// `npm run bench -- platform`: the local platform as `npm start` runs it, against issue 18's
// targets, written to the "## Local platform (issue 18)" section of docs/benchmarks.md:
//   - the build: a full build into a folder of its own, a build with nothing changed, and one with
//     one source changed (its record in the build's manifest made stale);
//   - `npm start` (tools/start/npm-start.mjs, without npm's own start-up) on a data folder of its
//     own, every port free: a first start (initdb, migrations), then warm starts (migrations
//     already applied), each timed from the spawn to "Ctrl-C stops everything"; the phases come
//     from watching the processes appear (migrations, apps);
//   - after the last warm start and IDLE seconds idle, each app's memory (Linux /proc): RSS, its
//     file-backed part (the Node binary, shared by every process), anonymous memory, PSS (shared
//     pages divided among the processes mapping them) and the V8 heap in use (the app's metrics);
//   - the same warm start and idle memory from the TypeScript sources (`npm start -- --source`),
//     the way every app ran before the build, for comparison.
// Flags: --no-write (print only), --no-source (skip the run from source); BENCH_IDLE_S=<s> (10).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { apps } from '../start/apps';
import { freePort } from '../start/ports';
import { ROOT } from '../start/runtime';
import { withSection } from './shared';

const TITLE = 'Local platform (issue 18)';
const TARGETS = { appRssMb: 100, totalRssMb: 600, warmStartS: 10 };
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 10);
const WARM_STARTS = 3;
const APPS = apps.map((a) => a.name);
const BUILDER = join(ROOT, 'tools', 'build', 'build.mjs');

const say = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (bytes: number) => bytes / 2 ** 20;
const s1 = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' / ');

interface BuildResult {
  files: number;
  compiled: number;
  ms: number;
}

interface BuildTimes {
  full: BuildResult & { wallMs: number };
  unchanged: BuildResult & { wallMs: number };
  oneFile: BuildResult & { wallMs: number };
}

/** Memory of one process, MiB. */
interface Memory {
  rss: number;
  file: number;
  anon: number;
  pss: number;
  /** V8 heap in use (the app's nodejs_heap_size_used_bytes), when its metrics answered. */
  heap?: number;
}

interface Start {
  ms: number;
  /** ms from the spawn until the first migration process, the first app process, every app healthy. */
  phases: { migrations?: number; apps?: number; up: number };
  memory?: Record<string, Memory>;
  /** The launcher and the embedded Postgres helper (Node processes besides the apps), MiB RSS. */
  others?: Record<string, number>;
}

/** Runs the builder as `npm run build` does, with --json; its own time and the wall time with Node's start. */
function runBuild(args: string[]): BuildResult & { wallMs: number } {
  const started = performance.now();
  const out = execFileSync(process.execPath, [BUILDER, '--json', ...args], { cwd: ROOT, encoding: 'utf8' });
  return { ...(JSON.parse(out.trim().split('\n').pop()!) as BuildResult), wallMs: performance.now() - started };
}

/** A full build into a folder of its own, then nothing changed, then one source changed. */
function buildTimes(): BuildTimes {
  // Inside dist/, which git, prettier, eslint and jest's module map ignore.
  mkdirSync(join(ROOT, 'dist', '.tmp'), { recursive: true });
  const out = mkdtempSync(join(ROOT, 'dist', '.tmp', 'bench-'));
  try {
    const full = runBuild(['--out', out, '--clean']);
    const unchanged = runBuild(['--out', out]);
    const manifest = JSON.parse(readFileSync(join(out, '.build.json'), 'utf8')) as { files: Record<string, number[]> };
    manifest.files['libs/app/src/run-app.ts'] = [0, 0];
    writeFileSync(join(out, '.build.json'), JSON.stringify(manifest));
    const oneFile = runBuild(['--out', out]);
    return { full, unchanged, oneFile };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** Every process below `root`: pid and command line. */
function descendants(root: number): { pid: number; cmd: string }[] {
  const all = readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .flatMap((n) => {
      try {
        const stat = readFileSync(`/proc/${n}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return [{ pid: Number(n), ppid, cmd: readFileSync(`/proc/${n}/cmdline`, 'utf8').replace(/\0/g, ' ') }];
      } catch {
        return [];
      }
    });
  const found: { pid: number; cmd: string }[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const parent = queue.shift();
    for (const p of all.filter((c) => c.ppid === parent)) {
      found.push(p);
      queue.push(p.pid);
    }
  }
  return found;
}

function memoryOf(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (text: string, field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1]) / 1024;
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  return { rss: kb(status, 'VmRSS'), file: kb(status, 'RssFile'), anon: kb(status, 'RssAnon'), pss: kb(rollup, 'Pss') };
}

async function heapUsed(port: number): Promise<number | undefined> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    // Each app's process metrics carry its prefix (pim_<app>_nodejs_…).
    const m = /^\w*nodejs_heap_size_used_bytes (\S+)$/m.exec(text);
    return m ? mb(Number(m[1])) : undefined;
  } catch {
    return undefined;
  }
}

/** The environment of `npm start` here: its own data folder, every port free, nothing from the caller's platform. */
async function startEnv(dataDir: string): Promise<{ env: NodeJS.ProcessEnv; metrics: Record<string, number> }> {
  const env: NodeJS.ProcessEnv = { ...process.env, PIM_DATA_DIR: dataDir, LOG_LEVEL: 'warn', NO_COLOR: '1' };
  for (const v of ['DATABASE_URL', 'NATS_URL', 'PIM_EVENTS_STREAM', 'PIM_SUBJECT_PREFIX', 'PIM_BOOTSTRAP_API_KEY'])
    delete env[v];
  const taken = new Set<number>();
  const free = async () => {
    let port = await freePort();
    while (taken.has(port)) port = await freePort();
    taken.add(port);
    return port;
  };
  const metrics: Record<string, number> = {};
  for (const app of apps) {
    env[app.portEnv] = String(await free());
    if (app.metrics) env[app.metrics.env] = String((metrics[app.name] = await free()));
  }
  env.PIM_PG_PORT = String(await free());
  env.PIM_NATS_PORT = String(await free());
  return { env, metrics };
}

/** `npm start` (or `npm start -- --source`) until it is up; the phases seen by polling its processes. */
async function startOnce(
  env: NodeJS.ProcessEnv,
  source: boolean,
): Promise<{ child: ChildProcess; ms: number; phases: Start['phases']; output: () => string }> {
  const started = performance.now();
  const args = [join(ROOT, 'tools', 'start', 'npm-start.mjs'), ...(source ? ['--source'] : [])];
  const child = spawn(process.execPath, args, { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d.toString()));
  child.stderr!.on('data', (d) => (out += d.toString()));
  const phases: Partial<Start['phases']> = {};
  while (!/Ctrl-C stops everything/.test(out)) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${out}`);
    if (performance.now() - started > 180_000) throw new Error(`npm start did not come up in 180 s:\n${out}`);
    const cmds = descendants(child.pid!).map((p) => p.cmd);
    const now = performance.now() - started;
    if (phases.migrations === undefined && cmds.some((c) => /\/src\/migrate\.(js|ts)$/.test(c.trim())))
      phases.migrations = now;
    if (phases.apps === undefined && cmds.some((c) => /\/src\/main\.(js|ts)$/.test(c.trim()))) phases.apps = now;
    await sleep(50);
  }
  const ms = performance.now() - started;
  return { child, ms, phases: { ...phases, up: ms }, output: () => out };
}

/** Ctrl-C as a terminal sends it; resolves once npm start exited. */
async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(-child.pid!, 'SIGINT');
  await exited;
}

/** Each app's memory and the other Node processes' RSS, below the launcher. */
async function measure(launcher: number, metrics: Record<string, number>): Promise<Pick<Start, 'memory' | 'others'>> {
  const memory: Record<string, Memory> = {};
  const others: Record<string, number> = { launcher: memoryOf(launcher).rss };
  for (const p of descendants(launcher)) {
    const app = /\/apps\/([a-z-]+)\/src\/main\.(js|ts)\s*$/.exec(p.cmd)?.[1];
    if (app) memory[app] = { ...memoryOf(p.pid), heap: await heapUsed(metrics[app]) };
    else if (/embedded-pg\.main\.(js|ts)/.test(p.cmd)) others['embedded Postgres helper'] = memoryOf(p.pid).rss;
  }
  return { memory, others };
}

/** RSS of a bare Node process (this Node) after a second: the floor under every app. */
function bareNodeRss(): number {
  const out = execFileSync(process.execPath, ['-e', 'setTimeout(() => console.log(process.memoryUsage().rss), 1000)'], {
    encoding: 'utf8',
  });
  return mb(Number(out.trim()));
}

/** Warm starts (the first one makes the cluster and migrates), the last one measured after IDLE_S idle. */
async function startRuns(
  env: NodeJS.ProcessEnv,
  metrics: Record<string, number>,
  source: boolean,
  runs: number,
): Promise<Start[]> {
  const starts: Start[] = [];
  for (let i = 0; i < runs; i++) {
    const run = await startOnce(env, source);
    let start: Start = { ms: run.ms, phases: run.phases };
    try {
      if (i === runs - 1) {
        await sleep(IDLE_S * 1000);
        start = { ...start, ...(await measure(run.child.pid!, metrics)) };
      }
    } finally {
      await stop(run.child);
    }
    say(`  ${source ? 'source' : 'build'} start ${i + 1}: ${s1(run.ms)} ${JSON.stringify(run.phases)}`);
    starts.push(start);
  }
  return starts;
}

interface Report {
  date: string;
  machine: string;
  loadBefore: string;
  loadAfter: string;
  build: BuildTimes;
  cold: Start;
  warm: Start[];
  source?: Start;
  bareRss: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const total = (m: Record<string, Memory> | undefined, key: keyof Memory) =>
  APPS.reduce((sum, a) => sum + (m?.[a]?.[key] ?? 0), 0);
const f0 = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? 'n/a' : x.toFixed(0));
const mark = (ok: boolean) => (ok ? 'met' : '**not met**');

function render(r: Report): string {
  const last = r.warm[r.warm.length - 1];
  const mem = last.memory ?? {};
  const warmMs = median(r.warm.map((w) => w.ms));
  const rssTotal = total(mem, 'rss');
  const pssTotal = total(mem, 'pss');
  const over = APPS.filter((a) => (mem[a]?.rss ?? Infinity) > TARGETS.appRssMb);
  const fileShare = median(APPS.map((a) => mem[a]?.file ?? 0));
  const rows = APPS.map((a) => {
    const m = mem[a];
    const before = r.source?.memory?.[a]?.rss;
    return `| ${a} | ${f0(before)} | **${f0(m?.rss)}** | ${f0(m?.file)} | ${f0(m?.anon)} | ${f0(m?.heap)} | ${f0(m?.pss)} | ${mark((m?.rss ?? Infinity) <= TARGETS.appRssMb)} |`;
  });
  const phases = (w: Start) =>
    `migrations from ${s1(w.phases.migrations ?? NaN)}, apps from ${s1(w.phases.apps ?? NaN)}, up at ${s1(w.phases.up)}`;
  const b = r.build;
  return `## ${TITLE}

Produced by \`npm run bench -- platform\` (\`tools/bench/platform.ts\`) on ${r.date}: ${r.machine}. The bench
runs \`npm start\`'s own entry (\`tools/start/npm-start.mjs\`, without npm's start-up of ~0.3 s) on a data folder of its own,
embedded Postgres and local nats-server, every port free, \`LOG_LEVEL=warn\`. **Other work ran on the machine**
(other engineers' tests): load average (1 / 5 / 15 min) ${r.loadBefore} at the start, ${r.loadAfter} at the end.

| target | measured | |
|---|---|---|
| idle RSS of every app ≤ ${TARGETS.appRssMb} MiB | ${over.length === 0 ? 'every app' : `${APPS.length - over.length} of ${APPS.length} apps; over: ${over.map((a) => `${a} ${f0(mem[a]?.rss)}`).join(', ')}`} | ${mark(over.length === 0)} |
| the seven apps together ≤ ${TARGETS.totalRssMb} MiB | RSS ${f0(rssTotal)} MiB (PSS ${f0(pssTotal)} MiB) | ${mark(rssTotal <= TARGETS.totalRssMb)} |
| warm start to healthy ≤ ${TARGETS.warmStartS} s | ${s1(warmMs)} (median of ${r.warm.length}: ${r.warm.map((w) => s1(w.ms)).join(', ')}) | ${mark(warmMs <= TARGETS.warmStartS * 1000)} |

Idle memory of each app ${IDLE_S} s after the platform was up, MiB: RSS from the sources (swc-node, as every
app ran before the build) and from the build; the build's RSS split into the pages of files it maps
(the Node binary, the same for every process) and anonymous memory; the V8 heap in use (the app's
\`nodejs_heap_size_used_bytes\`); PSS, where each shared page counts once across the processes mapping it.

| app | RSS from source | RSS from the build | files | anonymous | V8 heap used | PSS | ≤ ${TARGETS.appRssMb} MiB |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}
| **all seven** | ${f0(total(r.source?.memory, 'rss'))} | **${f0(rssTotal)}** | ${f0(total(mem, 'file'))} | ${f0(total(mem, 'anon'))} | ${f0(total(mem, 'heap'))} | ${f0(pssTotal)} | ${mark(rssTotal <= TARGETS.totalRssMb)} (≤ ${TARGETS.totalRssMb}) |

Besides the apps (not counted above): the launcher ${f0(last.others?.launcher)} MiB, the embedded Postgres helper
${f0(last.others?.['embedded Postgres helper'])} MiB (Node processes; Postgres and NATS themselves are not counted). A bare Node process
(${process.version}) holds ${f0(r.bareRss)} MiB.

Starts (spawn → "Ctrl-C stops everything"): the first, which makes the cluster and applies every migration,
${s1(r.cold.ms)} (${phases(r.cold)}); warm, from the build, ${r.warm.map((w) => s1(w.ms)).join(', ')} (the last: ${phases(last)})${
    r.source ? `; warm, from the sources, ${s1(r.source.ms)} (${phases(r.source)})` : ''
  }.

Before issue 18 (commit 382d131, every app from the sources through swc-node with a worker-thread orphan guard;
measured on 2026-11-26 with this bench's method, three warm starts interleaved with three of the build at load 7–12):
webhooks 307, catalog 368, workflow 312, orders 315, io-jobs 321, publisher 311, gateway 403 MiB RSS, 2,340 MiB for the
seven (PSS 1,860); warm starts 26.2, 14.0 and 14.3 s, against 8.2, 6.9 and 8.8 s for the build in between.

Build (\`npm run build\`, ${b.full.files} files: ${APPS.length} apps, the libs, the launcher, the protos): from scratch ${b.full.ms} ms
(${b.full.wallMs.toFixed(0)} ms with Node's start), nothing changed ${b.unchanged.ms} ms (${b.unchanged.wallMs.toFixed(0)} ms), one source
changed ${b.oneFile.ms} ms (${b.oneFile.compiled} compiled; ${b.oneFile.wallMs.toFixed(0)} ms). \`npm start\` builds first, so it never runs a stale build.

What bounds what is not met:

- **RSS per app**: ${fileShare.toFixed(0)} MiB of each app's RSS is the Node binary's pages (file-backed and shared: RSS counts
  them once per process, seven times in the total, PSS once); a bare Node process is ${f0(r.bareRss)} MiB. The rest is
  anonymous memory, mostly the V8 heap: the source and compiled code of the ~900–1,200 modules an app loads (typeorm alone
  loads every driver it has, ~300 modules; zod, grpc-js and protobufjs, the NATS client, pino, prom-client) and what the app
  builds at start. The gateway holds the most: the zod schemas of every route it declares (bodies, list queries with a
  parser per filterable field, responses), ~20 MiB of its heap. ${
    over.length > 0
      ? `Over the target: ${over.map((a) => `${a} by ${f0((mem[a]?.rss ?? 0) - TARGETS.appRssMb)} MiB`).join(', ')}.`
      : ''
  }
- **The seven together**: the RSS sum counts the shared binary seven times (${f0(total(mem, 'file'))} MiB of files); the memory
  the seven actually take (PSS) is ${f0(pssTotal)} MiB${pssTotal <= TARGETS.totalRssMb ? ', within the target' : `, ${f0(pssTotal - TARGETS.totalRssMb)} MiB over`}.${
    rssTotal > TARGETS.totalRssMb ? ` The RSS sum is ${f0(rssTotal - TARGETS.totalRssMb)} MiB over.` : ''
  }
- **Warm start**: CPU on ${cpus().length} cores shared with the machine's other work. In the last warm start the migrations
  took ${s1((last.phases.apps ?? NaN) - (last.phases.migrations ?? NaN))} (${APPS.length} Node processes one after another, ~0.4 s of CPU each to load
  an app's code and find nothing to apply; not at once: every app's first migration creates the same extension, which
  is not safe in two sessions at once), and the apps ${s1(last.phases.up - (last.phases.apps ?? NaN))} from their spawn to
  healthy (the six gRPC apps together, ~0.6 s of CPU each, then the gateway, ~0.9 s).${
    warmMs > TARGETS.warmStartS * 1000
      ? ` Over the target by ${s1(warmMs - TARGETS.warmStartS * 1000)} at this load.`
      : ''
  }
`;
}

/** Runs the benchmark and writes its section of docs/benchmarks.md (unless --no-write). */
export async function runPlatformBench(argv: string[]): Promise<void> {
  const write = !argv.includes('--no-write');
  const withSource = !argv.includes('--no-source');
  const loadBefore = load();
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  say(`machine: ${machine}; load ${loadBefore}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'pim-bench-platform-'));
  try {
    const build = buildTimes();
    say(`build: full ${build.full.ms} ms, unchanged ${build.unchanged.ms} ms, one file ${build.oneFile.ms} ms`);
    const { env, metrics } = await startEnv(dataDir);
    const [cold, ...warm] = await startRuns(env, metrics, false, 1 + WARM_STARTS);
    const source = withSource ? (await startRuns(env, metrics, true, 1))[0] : undefined;
    const report: Report = {
      date: new Date().toISOString().slice(0, 10),
      machine,
      loadBefore,
      loadAfter: load(),
      build,
      cold,
      warm,
      source,
      bareRss: bareNodeRss(),
    };
    const section = render(report);
    if (write) {
      const docPath = join(ROOT, 'docs', 'benchmarks.md');
      const formatted = await format(section, { ...(await resolveConfig(docPath)), filepath: docPath });
      writeFileSync(
        docPath,
        withSection(existsSync(docPath) ? readFileSync(docPath, 'utf8') : '# Benchmarks\n', TITLE, formatted),
      );
      say(`written to docs/benchmarks.md (${TITLE})`);
    }
    say(section);
  } catch (err) {
    say(`platform bench failed: ${(err as Error).stack ?? String(err)}`);
    process.exitCode = 1;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
