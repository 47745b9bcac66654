import type { FailureKind } from './checks';

/** One failure: its case (replayable by seed and index), what failed, and the request. */
export interface Failure {
  operation: string;
  kind: FailureKind | 'crash';
  caseKind: string;
  index: number;
  status: number;
  detail: string;
  note: string;
  request: string;
  /** What a reader needs to trace the failure in the platform's logs and tables (lines printed under it). */
  trace?: string[];
}

/** What a run did and found. */
export interface FuzzReport {
  seed: string;
  requests: number;
  ms: number;
  /** Of which waiting for the tables to settle and checksumming them. */
  msStorage: number;
  operations: { covered: number; total: number; missing: string[] };
  parameters: { covered: number; total: number; missing: string[] };
  /** Responses by status class (`2xx`, `4xx`...). */
  statuses: Record<string, number>;
  /** Cases by kind. */
  kinds: Record<string, number>;
  /** Mutated cases that changed something (a 2xx or 3xx to a write), by kind: what the platform took despite the mutation. */
  accepted: Record<string, number>;
  /** 503s with Retry-After that were sent again (the status the retry got): the store could not take them then. */
  transient: { index: number; operation: string; status: number; detail: string }[];
  storage: {
    /** Refused requests sent again in a batch whose tables were compared before and after. */
    refusalsChecked: number;
    refusals: number;
    /** Batches whose tables were compared, and those skipped (something was taken this time, or the platform did not settle). */
    batchesChecked: number;
    batchesSkipped: number;
    tables: number;
  };
  failures: Failure[];
}

const pct = (a: number, b: number) => (b === 0 ? '100.0' : ((100 * a) / b).toFixed(1));

/** Failures grouped by operation, then by kind, with a count each. */
export function groupFailures(failures: readonly Failure[]): Map<string, Map<string, Failure[]>> {
  const groups = new Map<string, Map<string, Failure[]>>();
  for (const f of failures) {
    const byKind = groups.get(f.operation) ?? new Map<string, Failure[]>();
    byKind.set(f.kind, [...(byKind.get(f.kind) ?? []), f]);
    groups.set(f.operation, byKind);
  }
  return groups;
}

/** The line that replays one case. */
export const replayLine = (seed: string, index: number) => `FUZZ_SEED=${seed} FUZZ_CASE=${index} npm run fuzz`;

/** The run's summary: requests, coverage of operations and parameters, storage checks, failures by operation and kind. */
export function formatReport(r: FuzzReport, examples = 2): string {
  const lines = [
    `fuzz seed ${r.seed}: ${r.requests} requests in ${(r.ms / 1000).toFixed(1)} s (${(r.msStorage / 1000).toFixed(1)} s of them settling and checksumming)`,
    `operations covered: ${r.operations.covered}/${r.operations.total} (${pct(r.operations.covered, r.operations.total)} %)`,
    `parameters covered: ${r.parameters.covered}/${r.parameters.total} (${pct(r.parameters.covered, r.parameters.total)} %)`,
    `statuses: ${Object.entries(r.statuses)
      .sort()
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    `storage: ${r.storage.refusalsChecked}/${r.storage.refusals} refused requests sent again between two checksums of ` +
      `${r.storage.tables} tables, which stayed equal (${r.storage.batchesChecked} batches, ${r.storage.batchesSkipped} skipped)`,
  ];
  const accepted = Object.entries(r.accepted).sort((a, b) => b[1] - a[1]);
  if (accepted.length > 0)
    lines.push(
      `mutated requests the platform took (not failures): ${accepted.map(([k, n]) => `${k} ${n}`).join(', ')}`,
    );
  if (r.transient.length > 0)
    lines.push(
      `503s with Retry-After sent again (${r.transient.length}, not failures when the retry was answered): ` +
        r.transient
          .slice(0, 10)
          .map((t) => `case ${t.index} ${t.operation} → ${t.status}`)
          .join(', '),
    );
  if (r.operations.missing.length > 0) lines.push(`operations not called: ${r.operations.missing.join(', ')}`);
  if (r.parameters.missing.length > 0)
    lines.push(
      `parameters not sent (${r.parameters.missing.length}): ${r.parameters.missing.slice(0, 20).join(', ')}${r.parameters.missing.length > 20 ? ', …' : ''}`,
    );
  lines.push(`failures: ${r.failures.length}`);
  for (const [operation, byKind] of groupFailures(r.failures)) {
    for (const [kind, list] of byKind) {
      lines.push(`  ${operation} — ${kind}: ${list.length}`);
      for (const f of list.slice(0, examples)) {
        lines.push(`    case ${f.index} (${f.caseKind}${f.note ? `: ${f.note}` : ''}) → ${f.status}: ${f.detail}`);
        if (f.request) lines.push(`      ${f.request}`);
        for (const line of f.trace ?? []) lines.push(`      ${line}`);
        if (f.index >= 0) lines.push(`      replay: ${replayLine(r.seed, f.index)}`);
      }
    }
  }
  return lines.join('\n');
}
