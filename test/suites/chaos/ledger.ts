import type { Json, WriteOutcome } from './api';

/** How a write ended, as the writer could tell. */
export type WriteResult =
  /** It answered 2xx: acknowledged. */
  | 'acked'
  /** No 2xx, but reading back shows it was carried out (an earlier attempt went through, then the answer was lost). */
  | 'applied'
  /** Refused for good (a 4xx that is the request's answer, the record unchanged). */
  | 'refused'
  /** Retried until the write deadline without an answer: unknown. */
  | 'abandoned';

/** One write the writer made. */
export interface Write {
  lane: number;
  /** What it was, e.g. `products.update`, `orders.move`, `imports.start`. */
  op: string;
  result: WriteResult;
  attempts: number;
  /** The record it wrote, once known. */
  collection?: string;
  id?: string;
  /** The record's version after the write (what its event carries). */
  version?: number;
  /** The final answer when it was not a 2xx (for reports). */
  answer?: string;
  /** Each attempt's status, when there was more than one. */
  trail?: string;
  /** An attempt failed after its request may have been carried out (so a retry may run it again). */
  uncertain?: boolean;
  /** Retried until the write deadline without an answer, whatever reading back found. */
  exhausted?: boolean;
  /** From its first try to its last answer. */
  ms?: number;
}

/** How a write's tries went, as a Write notes it. */
export function triesOf(out: WriteOutcome): Pick<Write, 'attempts' | 'trail' | 'uncertain' | 'exhausted' | 'ms'> {
  return {
    attempts: out.attempts,
    ms: out.ms,
    ...(out.attempts > 1 ? { trail: out.trail } : {}),
    ...(out.uncertain ? { uncertain: true } : {}),
    ...(out.exhausted ? { exhausted: true } : {}),
  };
}

/** What a record must look like at the end: its last known write. */
export interface Expected {
  collection: string;
  /** GET path of the record, under /api/v1. */
  path: string;
  id: string;
  version: number;
  /** Fields whose values the read-back must show. */
  fields: Json;
}

/** A started import: what its file held. */
export interface StartedImport {
  id: string;
  rows: number;
  refused: number;
  /** The codes of its good rows: each must be one product, written once (version 1). */
  codes: string[];
}

/** A started export: the products it must hold. */
export interface StartedExport {
  id: string;
  productIds: string[];
  codes: string[];
}

/** A decided product approval and the product it changes. */
export interface DecidedApproval {
  id: string;
  decision: 'approve' | 'reject';
  productId: string;
  /** The product's version before the decision. */
  productVersion: number;
  attributeGroups: string[];
}

/** A bulk upsert of new products: each must exist once, written once (version 1). */
export interface BulkUpsert {
  codes: string[];
}

/** Everything the writer did, for the checks. */
export class Ledger {
  readonly writes: Write[] = [];
  /** By record id: the last state written. */
  readonly expected = new Map<string, Expected>();
  readonly imports: StartedImport[] = [];
  readonly exports: StartedExport[] = [];
  readonly approvals: DecidedApproval[] = [];
  readonly bulks: BulkUpsert[] = [];
  /** 500 answers met (each a defect to explain). */
  readonly serverErrors: string[] = [];

  /** Notes a write; a carried-out one with a known state becomes its record's expected state. */
  add(write: Write, expected?: Omit<Expected, 'id' | 'version' | 'collection'>): void {
    this.writes.push(write);
    const done = write.result === 'acked' || write.result === 'applied';
    if (done && expected && write.id && write.collection && write.version !== undefined)
      this.expected.set(write.id, { ...expected, id: write.id, collection: write.collection, version: write.version });
  }

  /** Writes by result. */
  counts(): Record<WriteResult, number> {
    const out: Record<WriteResult, number> = { acked: 0, applied: 0, refused: 0, abandoned: 0 };
    for (const w of this.writes) out[w.result] += 1;
    return out;
  }
}
