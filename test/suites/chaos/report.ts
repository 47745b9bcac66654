import type { EventCounts } from './events.check';
import type { JobCounts } from './jobs.check';
import type { DoneKill } from './killer';
import type { WriteResult } from './ledger';
import type { ApprovalCounts } from './records.check';

/** What a chaos run did and found. */
export interface ChaosReport {
  seed: number;
  /** Milliseconds of each phase. */
  durations: { start: number; setup: number; chaos: number; settle: number; check: number; total: number };
  kills: DoneKill[];
  killsByKind: Record<string, number>;
  /** Restarts supervision made, by replica. */
  restarts: Record<string, number>;
  writes: Record<WriteResult, number>;
  /** Writes by operation and result. */
  writesByOp: Record<string, Partial<Record<WriteResult, number>>>;
  /** Requests sent beyond one per write (outages retried). */
  retries: number;
  /** Writes carried out whose 2xx was lost (an outage after the write), with each attempt's status. */
  lostAnswers: string[];
  /** The longest writes (op, time, each attempt's status): how long an outage kept a caller waiting. */
  slowest: string[];
  /**
   * Creates carried out twice after a try whose outcome was unknown (its answer lost, the retry
   * run again): each is also a failure. The apps answer a retry from its first run, so none is
   * expected.
   */
  twice: string[];
  events: EventCounts;
  /** Records read back. */
  stored: number;
  jobs: JobCounts;
  approvals: ApprovalCounts;
  deadLetters: number;
  /** What kept the platform from settling in time (empty: it settled). */
  unsettled: string[];
  /** Everything that broke a promise of the platform; empty when the run passed. */
  failures: string[];
  /** Where the apps' last output lines were written. */
  logFile: string;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The report in lines for a terminal. */
export function summarize(r: ChaosReport): string[] {
  const d = r.durations;
  const kills = Object.entries(r.killsByKind)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  const restarts = Object.values(r.restarts).reduce((a, b) => a + b, 0);
  const ops = Object.entries(r.writesByOp)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([op, by]) =>
        `    ${op.padEnd(28)} ${Object.entries(by)
          .map(([k, n]) => `${k} ${n}`)
          .join(', ')}`,
    );
  return [
    `chaos seed ${r.seed} (replay: CHAOS_SEED=${r.seed})`,
    `  time: ${seconds(d.total)} (start ${seconds(d.start)}, setup ${seconds(d.setup)}, chaos ${seconds(d.chaos)}, settle ${seconds(d.settle)}, checks ${seconds(d.check)})`,
    `  SIGKILLs: ${r.kills.length} (${kills}); restarts by supervision: ${restarts}`,
    `  writes: ${Object.entries(r.writes)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}; retried requests: ${r.retries}`,
    ...ops,
    `  slowest writes: ${r.slowest.join('; ')}`,
    ...(r.lostAnswers.length > 0 ? [`  carried out, answer lost: ${r.lostAnswers.join('; ')}`] : []),
    ...(r.twice.length > 0 ? [`  a create carried out twice: ${r.twice.join('; ')}`] : []),
    `  events: ${r.events.events} since the webhooks were in place; received ${r.events.received} deliveries, ${r.events.distinctIds} webhook-ids, ${r.events.duplicates} duplicates`,
    `  records read back: ${r.stored}; imports: ${r.jobs.imports}; exports: ${r.jobs.exports}; partial files left: ${r.jobs.partialFiles}`,
    `  approvals: ${r.approvals.approved} approved, ${r.approvals.rejected} rejected, ${r.approvals.pending} undecided; dead letters: ${r.deadLetters}`,
    ...(r.unsettled.length > 0 ? [`  did not settle: ${r.unsettled.join('; ')}`] : []),
    `  the apps' last output lines: ${r.logFile}`,
    r.failures.length === 0 ? '  PASSED: nothing lost, nothing twice' : `  FAILED (${r.failures.length}):`,
    ...r.failures.map((f) => `    - ${f}`),
  ];
}
