import type { Logger } from '@pim/logging';
import { sealedKeyId, type Keyring } from './keyring';

/** What one pass over a store found and did. */
export interface ResealTally {
  /** Values written again under the current key (clear ones sealed, other keys' re-sealed). */
  resealed: number;
  /** Values by the key they are sealed with after the pass (`(clear)`: not sealed). */
  sealedWith: Record<string, number>;
  /** Values that could not be opened: which record, and why. */
  unreadable: { id: string; problem: string }[];
  /** Records another writer changed while the pass re-sealed them (the next pass sees them again). */
  changedMeanwhile: number;
}

/**
 * A table (or column) of an app that keeps sealed values. One pass re-seals every value that is in
 * clear or sealed with another key than the current one, each record written only if it still holds
 * what was read (any replica may run a pass at the same time as another, or as a write).
 */
export interface SealedStore {
  /** What it holds, for the logs: `webhooks.secret`. */
  name: string;
  reseal(keyring: Keyring): Promise<ResealTally>;
}

const CLEAR = '(clear)';

/** Counts a store's pass while it re-seals the values of its records one record at a time. */
export class ResealCounter {
  readonly tally: ResealTally = { resealed: 0, sealedWith: {}, unreadable: [], changedMeanwhile: 0 };

  constructor(private readonly keyring: Keyring) {}

  /**
   * The values to store in place of a record's `stored` ones (null stays null): each sealed again
   * with the current key when it is in clear or under another key; one that cannot be opened is
   * kept as it is and counted as unreadable under `id`. `changed`: whether the record needs a write.
   */
  reseal(id: string, stored: readonly (string | null)[]): { values: (string | null)[]; changed: boolean } {
    let changed = false;
    const values = stored.map((v) => {
      if (v === null || !this.keyring.needsReseal(v)) return v;
      try {
        changed = true;
        return this.keyring.reseal(v);
      } catch (err) {
        this.tally.unreadable.push({ id, problem: (err as Error).message });
        return v;
      }
    });
    return { values, changed: changed && values.some((v, i) => v !== stored[i]) };
  }

  /** Counts a record once its write ran (`written` false: it had changed meanwhile, nothing was written). */
  done(stored: readonly (string | null)[], values: readonly (string | null)[], written: boolean): void {
    if (!written) {
      this.tally.changedMeanwhile += 1;
      return;
    }
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (v === null) continue;
      if (v !== stored[i]) this.tally.resealed += 1;
      const key = sealedKeyId(v) ?? CLEAR;
      this.tally.sealedWith[key] = (this.tally.sealedWith[key] ?? 0) + 1;
    }
  }
}

/** A table of records keeping sealed values, read in pages by id: what `pagedSealedStore` needs of it. */
export interface PagedSealedRecords<R extends { _id: string }> {
  /** What it holds, for the logs: `webhooks.secret`. */
  name: string;
  /** Up to `limit` records whose id sorts after `after` ('' for the first page), by id. */
  page(after: string, limit: number): Promise<R[]>;
  /** The record's sealed values, in a fixed order (null: none). */
  values(record: R): (string | null)[];
  /** Writes `values` (same order) in place of the record's, only if it still holds what was read; whether it wrote. */
  write(record: R, values: (string | null)[]): Promise<boolean>;
}

/** Records read per page by a paged store's pass. */
export const RESEAL_PAGE = 200;

/** A sealed store over a table read in pages by id: one record at a time, each written only when a value changed. */
export function pagedSealedStore<R extends { _id: string }>(records: PagedSealedRecords<R>): SealedStore {
  return {
    name: records.name,
    async reseal(keyring) {
      const counter = new ResealCounter(keyring);
      let after = '';
      for (;;) {
        const page = await records.page(after, RESEAL_PAGE);
        for (const record of page) {
          const stored = records.values(record);
          const { values, changed } = counter.reseal(record._id, stored);
          counter.done(stored, values, changed ? await records.write(record, values) : true);
        }
        if (page.length < RESEAL_PAGE) return counter.tally;
        after = page[page.length - 1]._id;
      }
    },
  };
}

/** A pass over every store of an app. */
export interface ResealReport extends ResealTally {
  currentKeyId: string;
}

/** How often a replica looks for values to re-seal after its first pass at start. */
export const RESEAL_INTERVAL_MS = 10 * 60_000;

/**
 * Re-seals an app's stored secrets under the current operator key: a pass at start (in the
 * background) and every `intervalMs` after. It seals values still in clear (written before
 * sealing existed, or by a replica of an older version) and moves values sealed with an older key
 * to the current one, so that key can be dropped once the log says every value is sealed with the
 * current key.
 */
export class ResealLoop {
  private timer: NodeJS.Timeout | undefined;
  // Passes run one after another, never two at once in one process.
  private chain: Promise<unknown> = Promise.resolve();
  private busy = false;
  private lastSummary = '';

  constructor(
    private readonly opts: { keyring: Keyring; stores: SealedStore[]; logger: Logger; intervalMs?: number },
  ) {}

  /** Runs a pass now, in the background (the app does not wait for it), and then every interval. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.pass(), this.opts.intervalMs ?? RESEAL_INTERVAL_MS);
    this.timer.unref();
    void this.pass();
  }

  /** No pass starts after this; resolves once the one running has finished. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.chain;
  }

  /** One pass over every store, after any pass already running; logs what it found and returns it. */
  runOnce(): Promise<ResealReport> {
    const run = this.chain.then(async () => {
      const report = await this.collect();
      this.report(report);
      return report;
    });
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async pass(): Promise<void> {
    if (this.busy || !this.timer) return;
    this.busy = true;
    try {
      await this.runOnce();
    } catch (err) {
      this.opts.logger.warn({ err }, 'secrets: the re-seal pass failed; the next one tries again');
    } finally {
      this.busy = false;
    }
  }

  private async collect(): Promise<ResealReport> {
    const { keyring } = this.opts;
    const report: ResealReport = {
      currentKeyId: keyring.currentKeyId,
      resealed: 0,
      sealedWith: {},
      unreadable: [],
      changedMeanwhile: 0,
    };
    for (const store of this.opts.stores) {
      const t = await store.reseal(keyring);
      report.resealed += t.resealed;
      report.changedMeanwhile += t.changedMeanwhile;
      for (const [key, n] of Object.entries(t.sealedWith)) report.sealedWith[key] = (report.sealedWith[key] ?? 0) + n;
      report.unreadable.push(...t.unreadable.map((u) => ({ id: `${store.name} ${u.id}`, problem: u.problem })));
    }
    return report;
  }

  private report(r: ResealReport): void {
    const { logger } = this.opts;
    const others = Object.keys(r.sealedWith).filter((k) => k !== r.currentKeyId);
    const fields = { current_key: r.currentKeyId, sealed_with: r.sealedWith, resealed: r.resealed };
    if (r.resealed > 0)
      logger.info(fields, `secrets: re-sealed ${r.resealed} stored value(s) with key ${r.currentKeyId}`);
    if (r.unreadable.length > 0) {
      logger.error(
        { ...fields, unreadable: r.unreadable.slice(0, 20) },
        `secrets: ${r.unreadable.length} stored value(s) cannot be opened with PIM_SECRETS_KEYS`,
      );
    }
    // The state is said once, then again only when it changes (a pass runs every 10 minutes).
    const summary = JSON.stringify(r.sealedWith);
    if (summary === this.lastSummary) return;
    this.lastSummary = summary;
    if (others.length === 0 && r.unreadable.length === 0 && r.changedMeanwhile === 0)
      logger.info(fields, `secrets: every stored value is sealed with the current key ${r.currentKeyId}`);
    else if (others.length > 0)
      logger.warn(fields, `secrets: values remain sealed with ${others.join(', ')}; keep those keys listed for now`);
  }
}
