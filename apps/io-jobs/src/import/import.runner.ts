import type { Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import { NotFoundError, ValidationError, toPimError } from '@pim/errors';
import type { Logger } from '@pim/logging';
import type { RecordService } from '@pim/records';
import { UTC, type BulkItemResult, type ImportHeader, type ImportInput, type ImportView } from '@pim/resources';
import { readRows, type SheetRow } from '@pim/sheets';
import type { FileStorage } from '@pim/storage';
import type { ImportEntity } from '../entities/import.entity';
import { runJobAs } from '@pim/logging';
import type { CatalogLink } from '../links/catalog.link';
import { jobOutcomes, type JobOutcome } from '../jobs/job.metrics';
import { keepRefusedRows, type RefusedRow } from '../repositories/import-errors.repository';
import { recordBatch } from '../repositories/imports.repository';
import { mappedAttributeKeys, type Mapping } from './import.mapping';
import { log } from './import.moves';
import { RowConverter, type ImportTargets, type RowItem, type RowProblem } from './import.rows';
import { sheetOf } from './import.sheet';

/** What the runner needs. */
export interface ImportRunnerDeps {
  ds: DataSource;
  imports: RecordService<ImportEntity, ImportView, ImportInput>;
  storage: FileStorage;
  catalog: CatalogLink;
  batchSize: number;
  logger: Logger;
  /** The app's Prometheus registry: runs are counted on `pim_io_jobs_jobs_total{kind="import"}`. */
  metrics?: Registry;
}

const count = (n: number) => n.toLocaleString('en-US');

/** A batch read and converted: its rows, the items for the catalog, the rows refused here, the codes it writes. */
interface PreparedBatch {
  rows: SheetRow[];
  items: RowItem[];
  problems: RowProblem[];
  codes: Set<string>;
}

/** A batch sent to the catalog: its rows and codes, and the rows refused once the catalog answered. */
interface SentBatch {
  rows: SheetRow[];
  /**
   * The checkpoint the batch starts from: the row after the batch before (`next_row` for the
   * first). Not its first row's number: empty rows between two batches are skipped by the reader,
   * and the checkpoint must match for the outcome to be recorded.
   */
  from: number;
  codes: Set<string>;
  outcome: Promise<RefusedRow[]>;
}

/** The problems of an item the catalog refused, each naming the column it came from. */
export function refusal(result: BulkItemResult, converter: RowConverter): string[] {
  const error = result.error as { message?: string; details?: { field: string; message: string }[] } | undefined;
  const details = error?.details ?? [];
  if (details.length === 0) return [error?.message ?? 'the catalog refused the product'];
  return details.map((d) => {
    const column = converter.columnOf(d.field);
    if (column !== undefined) return `${column}: ${d.message}`;
    // A field no column fills: the catalog's message speaks of a missing value, not of the sheet.
    if (/received undefined|required/i.test(d.message))
      return `${d.field}: no column fills it, and a new product needs it (map a column to ${MAPPED_AS[d.field] ?? d.field})`;
    return `${d.field}: ${d.message}`;
  });
}

/** How a product field is mapped, where it differs from its name. */
const MAPPED_AS: Record<string, string> = { name: 'name.<language>, e.g. name.pt-BR' };

/**
 * Runs one import's job: takes a queued import to `processing` (or resumes a running one where its
 * checkpoint is), reads the sheet from the checkpoint in batches, sends each batch to the
 * catalog's bulk upsert under the batch's id (so a batch resent after a crash is not written
 * twice), and records the batch's counts, refused rows and the next checkpoint in one
 * transaction, in sheet order. The next batch is sent while one is with the catalog (unless they
 * share a code). Counts are exact: every row is processed once, stored or refused. A canceled
 * import stops after the batches it has sent; the last batch ends it `completed` or
 * `completed_with_errors`.
 */
export class ImportRunner {
  private readonly outcomes?: ReturnType<typeof jobOutcomes>;

  constructor(private readonly deps: ImportRunnerDeps) {
    this.outcomes = deps.metrics && jobOutcomes(deps.metrics);
  }

  private counted(outcome: JobOutcome): void {
    this.outcomes?.inc({ kind: 'import', outcome });
  }

  /**
   * Runs the import's job as the user who started it (`run_as`: the catalog's lookups and bulk
   * upserts carry them, so a row naming a product out of their sight is refused); a failure on the
   * last try (or one no retry can mend) marks the import failed.
   */
  async run(importId: string, lastTry: boolean): Promise<void> {
    const record = await this.claim(importId);
    if (!record) return;
    await runJobAs('import', importId, record.run_as ?? null, async () => {
      try {
        await this.process(record);
      } catch (err) {
        const permanent = err instanceof ValidationError || err instanceof NotFoundError;
        this.deps.logger.warn({ err, import_id: importId, lastTry }, 'an import batch failed');
        if (!lastTry && !permanent) {
          this.counted('retried');
          throw err;
        }
        await this.fail(importId, err);
      }
    });
  }

  /** `queued` → `processing`, its checkpoint set below the header row; a running import resumes as it is. */
  private async claim(importId: string): Promise<ImportEntity | null> {
    try {
      const { record } = await this.deps.imports.mutate(importId, undefined, (r) => {
        if (r.status === 'processing') {
          log(r, `Resumed at row ${count(r.next_row!)} after an interruption`);
          return;
        }
        if (r.status !== 'queued') return false;
        Object.assign(r, {
          status: 'processing',
          started_at: new Date(),
          next_row: (r.file_header_row ?? 1) + 1,
          batch_size: this.deps.batchSize,
        });
        log(r, `Started: ${count(r.rows_count)} rows of worksheet '${r.file_worksheet_name}'`);
      });
      return record.status === 'processing' ? record : null;
    } catch (err) {
      if (err instanceof NotFoundError) return null; // deleted meanwhile
      throw err;
    }
  }

  private async process(record: ImportEntity): Promise<void> {
    const mapping = (record.mapped_headers ?? {}) as Mapping;
    const attributes = await this.deps.catalog.attributes(mappedAttributeKeys(mapping));
    const targets: ImportTargets = {};
    if (record.category_id) targets.category_id = record.category_id;
    if (record.catalog_id) {
      const catalog = await this.deps.catalog.catalog(record.catalog_id);
      if (catalog) targets.catalog = { _id: record.catalog_id, ...catalog };
    }
    const converter = new RowConverter(
      mapping,
      (record.headers ?? []) as ImportHeader[],
      new Map(attributes.map((a) => [a.key, a])),
      targets,
      this.deps.catalog,
      { stripFormulaQuote: record.strip_formula_quote, timeZone: record.time_zone ?? UTC },
    );
    const size = record.batch_size ?? this.deps.batchSize;
    const rows = readRows(sheetOf(this.deps.storage, record), record.file_worksheet_id!, { fromRow: record.next_row! });
    // One batch may be with the catalog while the next is read, converted and sent: the catalog
    // writes two batches at once (both cores) while their outcomes are still recorded in order.
    let ahead: SentBatch | undefined;
    let checkpoint = record.next_row!;
    const step = async (batch: SheetRow[]): Promise<boolean> => {
      const from = checkpoint;
      checkpoint = batch[batch.length - 1].number + 1;
      const next = await this.prepare(batch, converter);
      // Rows of one code apply in sheet order: a batch sharing a code with the one ahead waits for it.
      if (ahead && [...next.codes].some((c) => ahead!.codes.has(c))) {
        const go = await this.settle(record._id, ahead);
        ahead = undefined;
        if (!go) return false;
      }
      const sent = this.send(record._id, next, converter, from);
      const before = ahead;
      ahead = sent;
      if (before && !(await this.settle(record._id, before))) {
        // Stopping (canceled): the batch already sent is stored, so it is counted too.
        await this.settle(record._id, sent);
        return false;
      }
      return true;
    };
    let batch: SheetRow[] = [];
    for await (const row of rows) {
      if (row.number < record.next_row!) continue;
      batch.push(row);
      if (batch.length < size) continue;
      if (!(await step(batch))) return this.counted('stopped');
      batch = [];
    }
    if (batch.length > 0 && !(await step(batch))) return this.counted('stopped');
    if (ahead && !(await this.settle(record._id, ahead))) return this.counted('stopped');
    await this.finish(record._id);
  }

  /** A batch's rows as items (or their problems) and the codes it writes. */
  private async prepare(rows: SheetRow[], converter: RowConverter): Promise<PreparedBatch> {
    const { items, problems } = await converter.convert(rows);
    return { rows, items, problems, codes: new Set(items.map((i) => i.item.code as string)) };
  }

  /**
   * Sends a batch to the catalog's bulk upsert under the batch's id; its outcome (the rows refused,
   * by this import or by the catalog) is awaited by `settle`.
   */
  private send(importId: string, batch: PreparedBatch, converter: RowConverter, from: number): SentBatch {
    const { rows, items, problems } = batch;
    const outcome = (
      items.length > 0
        ? this.deps.catalog.upsert(
            items.map((i) => i.item),
            `${importId}:${rows[0].number}`,
          )
        : Promise.resolve([])
    ).then((results) => {
      const refused: RefusedRow[] = problems.map((p) => ({
        row_number: p.row.number,
        cells: p.row.cells,
        problems: p.problems.join('; '),
      }));
      results.forEach((result, i) => {
        if (result.status !== 'failed') return;
        refused.push({
          row_number: items[i].row.number,
          cells: items[i].row.cells,
          problems: refusal(result, converter).join('; '),
        });
      });
      return refused.sort((a, b) => a.row_number - b.row_number);
    });
    outcome.catch(() => undefined); // awaited in settle; never an unhandled rejection meanwhile
    return { rows, from, codes: batch.codes, outcome };
  }

  /**
   * Waits for a sent batch and records its outcome: counts added, refused rows kept and the
   * checkpoint moved past it, in one transaction. False when the import is to stop (canceled, or
   * another worker is ahead).
   */
  private async settle(importId: string, sent: SentBatch): Promise<boolean> {
    const refused = await sent.outcome;
    const { rows } = sent;
    const status = await this.deps.ds.transaction(async (m) => {
      const after = await recordBatch(m, {
        importId,
        fromRow: sent.from,
        nextRow: rows[rows.length - 1].number + 1,
        processed: rows.length,
        committed: rows.length - refused.length,
        failed: refused.length,
      });
      if (after !== undefined) await keepRefusedRows(m, importId, refused);
      return after;
    });
    return status === 'processing';
  }

  /** The last batch is in: `completed`, or `completed_with_errors` when rows were refused. */
  private async finish(importId: string): Promise<void> {
    const { record, changed } = await this.deps.imports.mutate(importId, undefined, (r) => {
      if (r.status !== 'processing') return false;
      r.status = r.errors_count > 0 ? 'completed_with_errors' : 'completed';
      r.finished_at = new Date();
      log(
        r,
        `Finished: ${count(r.proccess_count)} rows, ${count(r.commit_count)} stored, ${count(r.errors_count)} refused`,
      );
      return { event: 'completed' };
    });
    if (changed) this.counted(record.status === 'completed_with_errors' ? 'completed_with_errors' : 'completed');
  }

  /** `failed`, with the reason in the log. */
  private async fail(importId: string, err: unknown): Promise<void> {
    const reason = toPimError(err).message;
    await this.deps.imports
      .mutate(importId, undefined, (r) => {
        if (r.status !== 'processing' && r.status !== 'queued') return false;
        r.status = 'failed';
        r.finished_at = new Date();
        log(r, `Failed: ${reason}`);
        return { event: 'failed' };
      })
      .then(({ changed }) => changed && this.counted('failed'))
      .catch((e: unknown) => {
        if (!(e instanceof NotFoundError)) throw e;
      });
  }
}
