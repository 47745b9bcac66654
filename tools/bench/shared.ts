import { spawn, type ChildProcess } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startPlatform, type RunningPlatform } from '../start';
import { nodeArgs } from '../start/platform';

// What the benchmarks share: percentiles, a bounded pool of calls, their local receivers, and
// their sections of docs/benchmarks.md (each benchmark rewrites only its own "## <title>" section).

const ROOT = join(__dirname, '..', '..');

/** The p-th percentile of sorted numbers (nearest rank). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Runs fn for up to `total` calls and `ms` milliseconds with `concurrency` in flight; returns calls done and elapsed ms. */
export async function pool(
  total: number,
  ms: number,
  concurrency: number,
  fn: (i: number) => Promise<void>,
): Promise<{ done: number; elapsed: number }> {
  let next = 0;
  let done = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const i = next++;
        if (i >= total || performance.now() - started > ms) return;
        await fn(i);
        done += 1;
      }
    }),
  );
  return { done, elapsed: performance.now() - started };
}

/** Replaces (or appends) the "## <title>" section of a benchmarks document, keeping the rest. */
export function withSection(doc: string, title: string, section: string): string {
  const start = doc.indexOf(`\n## ${title}`);
  if (start < 0) return `${doc.trimEnd()}\n\n${section}`;
  const rest = doc.indexOf('\n## ', start + 1);
  return `${doc.slice(0, start).trimEnd()}\n\n${section.trimEnd()}\n${rest < 0 ? '' : doc.slice(rest)}`;
}

/**
 * A benchmarks document with a benchmark's report merged in: the report's text before its first
 * "## " heading replaces the document's, and each of its "## " sections replaces the document's
 * section of the same heading line (or is added at the end); every other section of the document
 * stays where it is (other benchmarks' results, hand-written summaries).
 */
export function mergeReport(doc: string, report: string): string {
  const split = (text: string) => text.split(/\n(?=## )/);
  const [preamble, ...sections] = split(report.trimEnd());
  if (!doc.trim()) return `${report.trimEnd()}\n`;
  const [, ...kept] = split(doc.trimEnd());
  const heading = (section: string) => section.split('\n', 1)[0].trim();
  const fresh = new Map(sections.map((section) => [heading(section), section.trimEnd()]));
  const out = kept.map((section) => {
    const replaced = fresh.get(heading(section));
    fresh.delete(heading(section));
    return replaced ?? section.trimEnd();
  });
  return `${[preamble.trimEnd(), ...out, ...fresh.values()].join('\n\n')}\n`;
}

/**
 * The whole platform as `npm start` runs it, on the bench's database and stream, with its
 * bootstrap admin key and no rate limit in the way; the apps' lines go to `logs`. `env` adds
 * variables for every app (e.g. an allow-list the bench's local receiver needs).
 */
export function startBenchPlatform(
  db: { url: string },
  stream: { url: string; name: string; subjectPrefix: string },
  adminKey: string,
  logs: string[],
  env: Record<string, string> = {},
): Promise<RunningPlatform> {
  return startPlatform({
    databaseUrl: db.url,
    natsUrl: stream.url,
    portBase: 'free',
    env: {
      PIM_EVENTS_STREAM: stream.name,
      PIM_SUBJECT_PREFIX: stream.subjectPrefix,
      LOG_LEVEL: 'warn',
      PIM_BOOTSTRAP_API_KEY: adminKey,
      RATE_LIMIT_PER_MINUTE: '1000000000',
      ...env,
    },
    log: (line) => logs.push(line),
  });
}

/** What a benchmark ran on: cores, CPU model, memory, Node and the Postgres server it measured. */
export async function machineOf(pg: { query(sql: string): Promise<{ rows: unknown[] }> }) {
  const postgres = ((await pg.query(`SHOW server_version`)).rows[0] as { server_version: string }).server_version;
  return {
    cores: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    memory: `${Math.round(totalmem() / 2 ** 30)} GiB`,
    node: process.version,
    postgres,
  };
}

/** A local receiver child process: where the platform is to send (`url`), and its control base. */
export interface LocalReceiver {
  /** `base` and the path the platform sends to. */
  url: string;
  /** `http://127.0.0.1:<port>`: the receiver's control requests (`/_stats`, `/_reset`...) go here. */
  base: string;
  port: number;
  child: ChildProcess;
}

/**
 * Starts a receiver (tools/bench/*.child.ts, in its own process so that the bench's client and the
 * platform compete for the CPU the same way) and waits for the port it prints as one JSON line.
 */
export async function startReceiver(file: string, path: string): Promise<LocalReceiver> {
  const child = spawn(process.execPath, [...nodeArgs(), join(__dirname, file)], {
    cwd: ROOT,
    env: { ...process.env, SWC_NODE_PROJECT: join(ROOT, 'tsconfig.json') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`${file} exited (${code})`)));
  });
  const base = `http://127.0.0.1:${port}`;
  return { url: `${base}${path}`, base, port, child };
}
