import type { ChaosApi, Json, WriteOutcome } from './api';
import type { Fixtures } from './fixtures';
import { triesOf, type Ledger, type Write, type WriteResult } from './ledger';
import type { ChaosOptions } from './options';
import type { Random } from './random';

/** A record a lane owns: only this lane writes it, so its last write is its state. */
export interface Owned {
  collection: string;
  /** Its path under /api/v1 (`/brands/<id>`). */
  path: string;
  id: string;
  version: number;
}

const ok = (status: number) => status >= 200 && status < 300;

/** What a write through `change` answers: its result and the record as last seen. */
export interface Changed {
  result: WriteResult;
  record?: Json;
}

/**
 * One writer lane: a sequence of writes on records of its own, each retried through outages with
 * the same Idempotency-Key (POST) or the same If-Match (PATCH and moves), and noted in the ledger.
 */
export class Lane {
  private seq = 0;
  /** Catalog records and products this lane created (and may update). */
  readonly owned: Owned[] = [];
  /** Orders this lane created and how far along ORDER_PATH each is. */
  readonly orders: (Owned & { at: number })[] = [];

  constructor(
    readonly n: number,
    readonly random: Random,
    readonly api: ChaosApi,
    readonly ledger: Ledger,
    readonly fixtures: Fixtures,
    readonly opts: ChaosOptions,
  ) {}

  /** A name unique in the run: `L<lane>-<n>`. */
  nextName(): string {
    this.seq += 1;
    return `L${this.n}-${this.seq}`;
  }

  /** A fresh Idempotency-Key, unique in the run and to this run's seed. */
  idempotencyKey(): string {
    return `chaos-${this.opts.seed}-${this.nextName()}`;
  }

  /**
   * POSTs a new record; after an uncertain failure (an attempt may have gone through, then a retry
   * met the result: a 409 for a taken code) the record is looked up by `find` to tell.
   */
  async create(
    op: string,
    collection: string,
    path: string,
    body: Json,
    find: () => Promise<Json | undefined>,
    opts: { key?: string; expect?: Json } = {},
  ): Promise<Json | undefined> {
    const out = await this.api.write(
      { method: 'POST', path, body, key: opts.key, headers: { 'idempotency-key': this.idempotencyKey() } },
      this.opts.writeDeadlineMs,
    );
    let record: Json | undefined = ok(out.status) ? out.json : undefined;
    let result: WriteResult = record ? 'acked' : 'refused';
    if (!record && (out.uncertain || out.status === 0)) {
      record = await find();
      result = record ? 'applied' : out.status === 0 || out.status >= 500 ? 'abandoned' : 'refused';
    }
    this.note(
      op,
      collection,
      out,
      result,
      record,
      opts.expect && { path: `${path}/${record?._id}`, fields: opts.expect },
    );
    return record;
  }

  /**
   * A change of an owned record guarded by If-Match (and an Idempotency-Key when it is a POST):
   * a retry after the first try went through gets a 412 or 409, and reading the record back
   * (`done`) tells whether the change is there.
   */
  async change(
    op: string,
    rec: Owned,
    req: { method: string; path: string; body: Json; key?: string },
    done: (record: Json) => boolean,
    expect?: Json,
  ): Promise<Changed> {
    const headers: Record<string, string> = { 'if-match': `"${rec.version}"` };
    if (req.method === 'POST') headers['idempotency-key'] = this.idempotencyKey();
    const out = await this.api.write({ ...req, headers }, this.opts.writeDeadlineMs);
    let record: Json | undefined = ok(out.status) ? out.json : undefined;
    let result: WriteResult = record ? 'acked' : 'refused';
    if (!record && (out.uncertain || out.status === 0)) {
      const now = await this.api.read(rec.path, this.opts.writeDeadlineMs, req.key);
      if (now.status === 200 && (now.json.version as number) > rec.version && done(now.json)) {
        record = { ...now.json, version: rec.version + 1 };
        result = 'applied';
      } else result = out.status === 0 || out.status >= 500 ? 'abandoned' : 'refused';
    }
    this.note(op, rec.collection, out, result, record ?? { _id: rec.id }, expect && { path: rec.path, fields: expect });
    if (record) rec.version = record.version as number;
    return { result, record };
  }

  private note(
    op: string,
    collection: string,
    out: WriteOutcome,
    result: WriteResult,
    record: Json | undefined,
    expected?: { path: string; fields: Json },
  ): void {
    this.ledger.serverErrors.push(...out.serverErrors);
    const write: Write = {
      lane: this.n,
      op,
      result,
      collection,
      id: record?._id as string | undefined,
      version: record?.version as number | undefined,
      ...(result === 'acked' ? {} : { answer: `${out.status} ${out.error ?? ''}`.trim() }),
      ...triesOf(out),
    };
    this.ledger.add(write, expected);
  }
}
