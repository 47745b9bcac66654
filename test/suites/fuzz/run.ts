import { buildCase, caseContext, type CaseContext, type FuzzCase } from './cases';
import { checkResponse, excerpt, fileNameProblems, type CheckContext } from './checks';
import { edgeCase, edgeCases } from './edges';
import { createFixtures } from './fixtures';
import { FuzzClient, sendRetrying, type FuzzResponse } from './http';
import { operationsOf, parameterKey, type ApiDocument, type Operation } from './operations';
import type { Failure, FuzzReport } from './report';
import { resolverOf, type Schema } from './schema';
import { changedTables, formatChangedRow, StorageProbe, type Settled, type TableChange } from './storage';

/** How a fuzz run is made. */
export interface FuzzOptions {
  /** The platform's origin (`http://127.0.0.1:8080`). */
  origin: string;
  apiKey: string;
  /** The platform's database: with it, refused requests are checked to store nothing. */
  databaseUrl?: string;
  seed: string;
  requests: number;
  /** Only these case indices (a replay); their batch's storage is compared. */
  only?: number[];
  concurrency?: number;
  /** Requests between two storage checks. */
  batchSize?: number;
  /** The platform's output lines, when this run started it: an app that exited is a failure. */
  logs?: string[];
  /** Progress lines. */
  log?: (line: string) => void;
  /** Every case and its answer, in full (for a replay). */
  trace?: (line: string) => void;
}

interface Outcome {
  c: FuzzCase;
  res: FuzzResponse;
}

const SAFE = new Set(['GET', 'OPTIONS']);
/** Batches in a phase: its cases are sent, then its refusals again, between checksums. */
const PHASE_BATCHES = 10;
/**
 * How long the tables must stay unchanged to count as settled: after accepted writes, longer than
 * the job queue's 2 s poll (an export waits that long to start); after refusals, which start
 * nothing, a short look.
 */
const SETTLE_AFTER_WRITES_MS = 2_500;
const SETTLE_AFTER_REFUSALS_MS = 400;
/** Requests of a batch sent again alone to find the one that stored. */
const BLAME_MAX = 20;
/** Log lines shown per request named by a changed row. */
const LOGGED_PER_REQUEST = 5;
const tables = (cs: TableChange[]) => cs.map((t) => `${t.table} (${t.rowsBefore} → ${t.rowsAfter} rows)`).join(', ');
/** Lines of the platform saying an app ended (the supervisor restarts it). */
const EXITED = /\[start\] \S+ exited \(|restarting \S+ in /;

/** Whether an answer says a write was taken (a 2xx or 3xx to anything but GET and OPTIONS). */
const writes = (o: { c: FuzzCase; res: FuzzResponse }) =>
  o.res.status >= 200 && o.res.status < 400 && !SAFE.has(o.c.request.method);

/** Whether an answer is a refusal: a 4xx, or none at all. */
const refusal = (o: { res: FuzzResponse }) => (o.res.status >= 400 && o.res.status < 500) || o.res.status === 0;

/** A short form of a request for a failure line. */
export function describeRequest(c: FuzzCase): string {
  const r = c.request;
  if (r.raw) return `raw ${JSON.stringify(r.raw.bytes.subarray(0, 160).toString('latin1'))}`;
  const body = r.body ? ` body ${JSON.stringify(r.body.subarray(0, 160).toString('utf8'))}` : '';
  const headers = Object.entries(r.headers)
    .filter(([k]) => k !== 'authorization')
    .map(([k, v]) => `${k}: ${v.slice(0, 60)}`)
    .join(', ');
  return `${r.method} ${r.path.slice(0, 300)}${headers ? ` [${headers}]` : ''}${body}`;
}

/** A case's request id as sent, and as answered when the gateway gave another (a raw request Node's parser refused). */
export function requestIdLine(o: { c: FuzzCase; res: FuzzResponse }): string {
  const sent = o.c.request.headers['x-request-id'];
  const answered = o.res.headers['x-request-id'];
  return answered && answered !== sent ? `${sent} (answered as ${answered})` : sent;
}

/** Runs `work` over `items` with at most `concurrency` at once, in order of start. */
async function pool<T, R>(items: readonly T[], concurrency: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await work(items[i]);
      }
    }),
  );
  return out;
}

/**
 * A fuzz run against a running platform, over HTTP only: fixtures first, then `requests` cases
 * (every operation once a round), each answer checked; the refused ones are sent again in batches
 * between two checksums of the apps' tables, which must be equal.
 */
export async function runFuzz(opts: FuzzOptions): Promise<FuzzReport> {
  const log = opts.log ?? (() => undefined);
  const started = Date.now();
  const client = new FuzzClient(opts.origin);
  const probe = opts.databaseUrl ? await StorageProbe.connect(opts.databaseUrl) : undefined;
  try {
    const docRes = await client.send({ method: 'GET', path: '/api/v1/openapi.json', headers: {} }, 64 * 1024 * 1024);
    if (docRes.status !== 200) throw new Error(`GET /api/v1/openapi.json answered ${docRes.status}`);
    const doc = JSON.parse(docRes.body.toString()) as ApiDocument;
    const ops = operationsOf(doc);
    const resolve = resolverOf(doc);
    const checks: CheckContext = { errorSchema: doc.components!.schemas!.Error as Schema, resolve };
    const fixtures = await createFixtures(client, opts.apiKey);
    log(`fixtures: ${fixtures.entries().length} collections in ${Date.now() - started} ms`);
    const ctx = caseContext({
      seed: opts.seed,
      ops,
      resolve,
      fixtures,
      apiKey: opts.apiKey,
      host: new URL(opts.origin).host,
    });
    const run = new Run(opts, ctx, client, checks, probe);
    await run.all();
    return run.report(ops, started);
  } finally {
    await client.close();
    await probe?.close();
  }
}

/** The state of one run: coverage, counts, storage checks and failures. */
class Run {
  private readonly opsSeen = new Set<string>();
  private readonly paramsSeen = new Set<string>();
  private readonly statuses: Record<string, number> = {};
  private readonly kinds: Record<string, number> = {};
  private readonly accepted: Record<string, number> = {};
  private readonly failures: Failure[] = [];
  /** Indices of the cases that failed (a second look at one does not report it twice). */
  private readonly failed = new Set<number>();
  private readonly storage = { refusalsChecked: 0, refusals: 0, batchesChecked: 0, batchesSkipped: 0 };
  private sent = 0;
  private msStorage = 0;
  private readonly transient: FuzzReport['transient'] = [];

  constructor(
    private readonly opts: FuzzOptions,
    private readonly ctx: CaseContext,
    private readonly client: FuzzClient,
    private readonly checks: CheckContext,
    private readonly probe?: StorageProbe,
  ) {}

  async all(): Promise<void> {
    const batchSize = this.opts.batchSize ?? 100;
    const chunks = <T>(items: T[]) =>
      Array.from({ length: Math.ceil(items.length / batchSize) }, (_, i) =>
        items.slice(i * batchSize, (i + 1) * batchSize),
      );
    // The edge cases (-1, -2, …) first, every run; then the generated ones (0, 1, …).
    const edges = edgeCases(this.ctx).map((c) => c.index);
    const indices = this.opts.only ?? [...edges, ...Array.from({ length: this.opts.requests }, (_, i) => i)];
    // A phase sends its cases, then sends the ones refused again in batches between checksums of
    // the tables: a batch of refusals follows a batch of refusals, so the platform settles once
    // after the phase's accepted writes rather than before every batch.
    for (let start = 0; start < indices.length; start += batchSize * PHASE_BATCHES) {
      const cases = indices
        .slice(start, start + batchSize * PHASE_BATCHES)
        .map((i) => (i < 0 ? edgeCase(this.ctx, i) : buildCase(this.ctx, i)));
      const refused: FuzzCase[] = [];
      for (const chunk of chunks(cases)) refused.push(...(await this.firstLook(chunk)));
      if (this.probe) await this.compareRefusals(chunks(refused));
    }
    for (const line of this.opts.logs ?? [])
      if (EXITED.test(line))
        this.failures.push({
          operation: '(platform)',
          kind: 'crash',
          caseKind: '',
          index: -1,
          status: 0,
          detail: line,
          note: '',
          request: '',
        });
  }

  /**
   * Sends a case. A 503 with Retry-After (the store cannot take it now: on a shared machine, a
   * Postgres out of connections) is sent once more after the wait, as a client must; only a
   * second 503 fails the case, and every retried one is reported.
   */
  private async send(c: FuzzCase): Promise<Outcome> {
    const { res, first } = await sendRetrying(() => {
      this.sent++;
      return this.client.send(c.request);
    });
    if (first)
      this.transient.push({ index: c.index, operation: c.op.id, status: res.status, detail: excerpt(first.body, 300) });
    this.opts.trace?.(
      `case ${c.index} ${c.op.id} (${c.kind}${c.note ? `: ${c.note}` : ''})\n  ${describeRequest(c)}\n  → ${res.status} ${res.error ?? excerpt(res.body, 2_000)}`,
    );
    if (this.sent % 1000 === 0) this.opts.log?.(`${this.sent} requests, ${this.failures.length} failures`);
    return { c, res };
  }

  private record(o: Outcome, kind: Failure['kind'], detail: string, trace?: string[]): void {
    this.failed.add(o.c.index);
    // What the platform logged about a request it failed (its error and stack, by request id).
    const id = o.res.headers['x-request-id'];
    const logged = kind === 'server-error' && id ? this.opts.logs?.filter((l) => l.includes(id)) : undefined;
    this.failures.push({
      operation: o.c.op.id,
      kind,
      caseKind: o.c.kind,
      index: o.c.index,
      status: o.res.status,
      detail: logged?.length ? `${detail}; logged: ${logged.join(' ').slice(0, 1_500)}` : detail,
      note: o.c.note,
      request: describeRequest(o.c),
      trace,
    });
  }

  /** Sends cases and checks each answer; returns the ones refused (a 4xx, or no answer). */
  private async firstLook(cases: FuzzCase[]): Promise<FuzzCase[]> {
    const outcomes = await pool(cases, this.opts.concurrency ?? 6, (c) => this.send(c));
    for (const o of outcomes) {
      this.opsSeen.add(o.c.op.id);
      for (const p of o.c.parameters) this.paramsSeen.add(p);
      const cls = o.res.status === 0 ? 'none' : `${String(o.res.status)[0]}xx`;
      this.statuses[cls] = (this.statuses[cls] ?? 0) + 1;
      this.kinds[o.c.kind] = (this.kinds[o.c.kind] ?? 0) + 1;
      if (o.c.mutated && writes(o)) this.accepted[o.c.kind] = (this.accepted[o.c.kind] ?? 0) + 1;
      this.check(o);
    }
    const refused = outcomes.filter(refusal).map((o) => o.c);
    this.storage.refusals += refused.length;
    return refused;
  }

  private check(o: Outcome): void {
    if (this.failed.has(o.c.index)) return;
    const problems = checkResponse(o.res, this.checks, o.c.mayGoUnanswered);
    for (const p of [...problems, ...fileNameProblems(o.res, o.c.fileName)]) this.record(o, p.kind, p.detail);
  }

  /**
   * Sends refused requests again, a batch at a time, between two settled checksums of the tables,
   * which must be equal. A batch where something is taken this time tells nothing: it is skipped.
   */
  private async compareRefusals(batches: FuzzCase[][]): Promise<void> {
    let before = await this.settled(SETTLE_AFTER_WRITES_MS);
    for (const cases of batches) {
      const outcomes = await pool(cases, this.opts.concurrency ?? 6, (c) => this.send(c));
      outcomes.forEach((o) => this.check(o));
      const after = outcomes.some(writes) ? undefined : await this.settled(SETTLE_AFTER_REFUSALS_MS);
      if (!before.stable || !after?.stable) {
        this.storage.batchesSkipped++;
        before = await this.settled(SETTLE_AFTER_WRITES_MS);
        continue;
      }
      this.storage.batchesChecked++;
      this.storage.refusalsChecked += outcomes.filter(refusal).length;
      const changes = changedTables(before.snapshot, after.snapshot);
      if (changes.length === 0) {
        before = after;
        continue;
      }
      await this.blame(outcomes, changes, before.at);
      before = await this.settled(SETTLE_AFTER_WRITES_MS);
    }
  }

  /** A settled snapshot, its time counted. */
  private async settled(gapMs: number): Promise<Settled> {
    const started = Date.now();
    const s = await this.probe!.settled(gapMs);
    this.msStorage += Date.now() - started;
    return s;
  }

  /**
   * A refused batch changed the tables: its requests that may write (those whose path names a
   * changed table first) are sent again alone, between two settled snapshots, to name the one
   * that stores; if none does alone, the batch is the failure. Each failure carries the rows
   * written since the last equal checksum (`since`), the request ids of the batch's cases, and
   * what the platform logged for the requests the rows name, to be matched with the apps' logs.
   */
  private async blame(batch: Outcome[], changes: TableChange[], since: string): Promise<void> {
    const probe = this.probe!;
    const refused = batch.filter(refusal);
    const words = new Set(changes.flatMap((c) => c.table.split(/[._]/)));
    const relevance = (o: Outcome) => o.c.op.path.split(/[/_-]/).filter((w) => words.has(w)).length;
    const candidates = refused
      .filter((o) => !SAFE.has(o.c.request.method))
      .sort((a, b) => relevance(b) - relevance(a))
      .slice(0, BLAME_MAX);
    const changed = await this.changedRows(changes, since);
    const trace = [
      ...changed.lines,
      `request ids of the batch's ${batch.length} cases: ${batch.map(requestIdLine).join(', ')}`,
      ...this.loggedFor(changed.requestIds),
    ];
    // A written row that names the request which wrote it (an event's request_id) names the culprit.
    const culprits = refused.filter((o) => changed.requestIds.includes(o.res.headers['x-request-id'] ?? ''));
    for (const o of culprits)
      this.record(o, 'stored-on-refusal', `refused with ${o.res.status}, yet wrote rows naming its request id`, trace);
    let named = culprits.length > 0;
    for (const o of named ? [] : candidates) {
      const before = await probe.settled(SETTLE_AFTER_REFUSALS_MS);
      const { res: again } = await sendRetrying(() => this.client.send(o.c.request));
      const after = await probe.settled(SETTLE_AFTER_WRITES_MS);
      const diff = changedTables(before.snapshot, after.snapshot);
      if (diff.length > 0 && again.status >= 400) {
        named = true;
        const alone = await this.changedRows(diff, before.at);
        this.record(
          { c: o.c, res: again },
          'stored-on-refusal',
          `refused with ${again.status}, yet changed ${tables(diff)} when sent again alone`,
          [...alone.lines, ...this.loggedFor(alone.requestIds), 'in its batch:', ...trace],
        );
      }
    }
    if (!named) {
      this.record(
        refused[0] ?? batch[0],
        'stored-on-refusal',
        `a batch of ${refused.length} refused requests (cases ${refused.map((o) => o.c.index).join(',')}) changed ${tables(changes)}`,
        trace,
      );
    }
  }

  /** The rows of changed tables written since `since`, a line each, and the request ids they name. */
  private async changedRows(changes: TableChange[], since: string): Promise<{ lines: string[]; requestIds: string[] }> {
    const lines = [`rows written since ${since} (the last equal checksum):`];
    const requestIds = new Set<string>();
    for (const c of changes) {
      const rows = await this.probe!.rowsSince(c.table, since);
      if (rows === undefined)
        lines.push(`  ${c.table}: no updated_at, created_at or deleted_at, its rows cannot be listed`);
      else if (rows.length === 0)
        lines.push(`  ${c.table}: none stamped since then (a row removed, or written unstamped)`);
      for (const r of rows ?? []) {
        lines.push(`  ${formatChangedRow(r)}`);
        r.requestIds.forEach((id) => requestIds.add(id));
      }
    }
    return { lines, requestIds: [...requestIds] };
  }

  /** What the platform logged for these requests, when this run started it (a few lines each). */
  private loggedFor(requestIds: string[]): string[] {
    const logs = this.opts.logs ?? [];
    return requestIds.flatMap((id) =>
      logs
        .filter((l) => l.includes(id))
        .slice(0, LOGGED_PER_REQUEST)
        .map((l) => `logged for ${id}: ${l.slice(0, 500)}`),
    );
  }

  report(ops: Operation[], started: number): FuzzReport {
    const allParams = ops.flatMap((op) => op.parameters.map((p) => parameterKey(op, p)));
    return {
      seed: this.opts.seed,
      requests: this.sent,
      ms: Date.now() - started,
      msStorage: this.msStorage,
      operations: {
        covered: ops.filter((o) => this.opsSeen.has(o.id)).length,
        total: ops.length,
        missing: ops.filter((o) => !this.opsSeen.has(o.id)).map((o) => o.id),
      },
      parameters: {
        covered: allParams.filter((p) => this.paramsSeen.has(p)).length,
        total: allParams.length,
        missing: allParams.filter((p) => !this.paramsSeen.has(p)),
      },
      statuses: this.statuses,
      kinds: this.kinds,
      accepted: this.accepted,
      transient: this.transient,
      storage: { ...this.storage, tables: this.probe?.tables.length ?? 0 },
      failures: this.failures,
    };
  }
}
