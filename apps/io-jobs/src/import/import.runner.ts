import type { Registry } from 'prom-client';
import type { DataSource, EntityManager } from 'typeorm';
import { NotFoundError, ValidationError, toPimError } from '@pim/errors';
import type { Logger } from '@pim/logging';
import type { RecordService } from '@pim/records';
import {
  UTC,
  importRowShape,
  type BulkItemResult,
  type ImportHeader,
  type ImportInput,
  type ImportView,
} from '@pim/resources';
import { readRows, type SheetRow } from '@pim/sheets';
import type { FileStorage } from '@pim/storage';
import type { ImportEntity } from '../entities/import.entity';
import { runJobAs } from '@pim/logging';
import type { CatalogLink } from '../links/catalog.link';
import { jobOutcomes, type JobOutcome } from '../jobs/job.metrics';
import { keepRefusedRows, type RefusedRow } from '../repositories/import-errors.repository';
import { AttributeRows } from './import.attribute-rows';
import { EligibilityRows } from './import.eligibility-rows';
import { mappedAttributeKeys, type Mapping } from './import.mapping';
import { log } from './import.moves';
import { RowConverter, type ImportTargets } from './import.rows';
import { GROUP_SLACK, refusedRow, type RowShape, type ShapedBatch } from './import.shape';
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

/** What a batch changed: its rows, how many the catalog stored and refused, and where the next batch starts. */
interface BatchOutcome {
  /** The batch's first sheet row: the checkpoint it starts from. */
  fromRow: number;
  nextRow: number;
  processed: number;
  committed: number;
  failed: number;
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
 * Whether a full batch (`rows` of `size` or more) is cut before `row`: always for a shape with no
 * runs to keep whole (product rows) or once the batch has grown `GROUP_SLACK` past its size; else
 * only before a row with a key other than the batch's last key (`lastKey`), so the rows of one
 * product (attribute rows) or of one product's relation (eligibility rows) that follow one another
 * are sent together. A row with no key (refused alone) does not end a run.
 */
export function cutsBefore(
  shape: Pick<RowShape, 'groupOf'>,
  batch: { rows: number; lastKey: string | undefined },
  row: SheetRow,
  size: number,
): boolean {
  if (batch.rows < size) return false;
  if (!shape.groupOf || batch.rows >= size + GROUP_SLACK) return true;
  const key = shape.groupOf(row);
  return key !== undefined && key !== batch.lastKey;
}

/**
 * Product rows: each row one product, converted by `RowConverter` and sent to the catalog's bulk
 * upsert as one batch (merged onto stored products); a refused item's problems name its columns.
 */
function productRows(converter: RowConverter, catalog: CatalogLink): RowShape {
  return {
    async prepare(rows) {
      const { items, problems } = await converter.convert(rows);
      return {
        codes: new Set(items.map((i) => i.item.code as string)),
        async send(batchId) {
          const results =
            items.length > 0
              ? await catalog.upsert(
                  items.map((i) => i.item),
                  batchId,
                )
              : [];
          const refused: RefusedRow[] = problems.map((p) => refusedRow(p.row, p.problems));
          results.forEach((result, i) => {
            if (result.status === 'failed') refused.push(refusedRow(items[i].row, refusal(result, converter)));
          });
          return refused.sort((a, b) => a.row_number - b.row_number);
        },
      };
    },
  };
}

/**
 * Runs one import's job: takes a queued import to `processing` (or resumes a running one where its
 * checkpoint is), reads the sheet from the checkpoint in batches of the shape its mapping names
 * (product rows, attribute rows, eligibility rows: `shapeOf`), sends each batch to the catalog —
 * its bulk upsert under the batch's id, or its product relations, each written only when it
 * differs — so that a batch resent after a crash is not written twice, and records the batch's
 * counts, refused rows and the next checkpoint in one transaction, in sheet order. The next batch
 * is sent while one is with the catalog (unless they share a code). Counts are exact: every row is
 * processed once, stored or refused. A canceled import stops after the batches it has sent; the
 * last batch ends it `completed` or `completed_with_errors`.
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

  /** How the import's rows are read and written: the shape its mapping names (`importRowShape`). */
  private async shapeOf(record: ImportEntity): Promise<RowShape> {
    const mapping = (record.mapped_headers ?? {}) as Mapping;
    const headers = (record.headers ?? []) as ImportHeader[];
    const options = { stripFormulaQuote: record.strip_formula_quote, timeZone: record.time_zone ?? UTC };
    const shape = importRowShape(Object.values(mapping));
    // Eligibility rows write relations only: the import's catalog and category are refused with them.
    if (shape === 'eligibility_rows') return new EligibilityRows(mapping, headers, this.deps.catalog, options);
    const targets: ImportTargets = {};
    if (record.category_id) targets.category_id = record.category_id;
    if (record.catalog_id) {
      const catalog = await this.deps.catalog.catalog(record.catalog_id);
      if (catalog) targets.catalog = { _id: record.catalog_id, ...catalog };
    }
    if (shape === 'attribute_rows') return new AttributeRows(mapping, headers, targets, this.deps.catalog, options);
    const attributes = await this.deps.catalog.attributes(mappedAttributeKeys(mapping));
    const converter = new RowConverter(
      mapping,
      headers,
      new Map(attributes.map((a) => [a.key, a])),
      targets,
      this.deps.catalog,
      options,
    );
    return productRows(converter, this.deps.catalog);
  }

  private async process(record: ImportEntity): Promise<void> {
    const shape = await this.shapeOf(record);
    const size = record.batch_size ?? this.deps.batchSize;
    // A shape that follows runs of rows across batches reads the rows before the checkpoint again.
    const fromRow = shape.readsPassedRows ? (record.file_header_row ?? 1) + 1 : record.next_row!;
    const rows = readRows(sheetOf(this.deps.storage, record), record.file_worksheet_id!, { fromRow });
    // One batch may be with the catalog while the next is read, converted and sent: the catalog
    // writes two batches at once (both cores) while their outcomes are still recorded in order.
    let ahead: SentBatch | undefined;
    let checkpoint = record.next_row!;
    const step = async (batch: SheetRow[]): Promise<boolean> => {
      const from = checkpoint;
      checkpoint = batch[batch.length - 1].number + 1;
      const next = await shape.prepare(batch);
      // Rows of one code apply in sheet order: a batch sharing a code with the one ahead waits for it.
      if (ahead && [...next.codes].some((c) => ahead!.codes.has(c))) {
        const go = await this.settle(record._id, ahead);
        ahead = undefined;
        if (!go) return false;
      }
      const sent = this.send(record._id, batch, next, from);
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
    // The key of the batch's last row that has one: a batch is not cut inside a run of one key.
    let lastKey: string | undefined;
    for await (const row of rows) {
      if (row.number < record.next_row!) {
        shape.passed?.(row);
        continue;
      }
      if (cutsBefore(shape, { rows: batch.length, lastKey }, row, size)) {
        if (!(await step(batch))) return this.counted('stopped');
        batch = [];
        lastKey = undefined;
      }
      batch.push(row);
      lastKey = shape.groupOf?.(row) ?? lastKey;
      // Without runs to keep whole, a batch goes as soon as it is full.
      if (!shape.groupOf && batch.length >= size) {
        if (!(await step(batch))) return this.counted('stopped');
        batch = [];
      }
    }
    if (batch.length > 0 && !(await step(batch))) return this.counted('stopped');
    if (ahead && !(await this.settle(record._id, ahead))) return this.counted('stopped');
    await this.finish(record._id);
  }

  /**
   * Sends a prepared batch under the batch's id (`<import id>:<first row>`); its outcome (the rows
   * refused, by this import or by the catalog) is awaited by `settle`.
   */
  private send(importId: string, rows: SheetRow[], batch: ShapedBatch, from: number): SentBatch {
    const outcome = batch.send(`${importId}:${rows[0].number}`);
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
      const after = await this.recordBatch(m, importId, {
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

  /**
   * Records a batch's outcome on its import, in the caller's transaction: counts added and the
   * checkpoint moved past the batch, only if the checkpoint is still where the batch began
   * (another worker that resumed the same import and got there first leaves this one nothing to
   * record). A new version with its `imports.updated` event, so ETags and the progress stream
   * follow the counts (docs/decisions/io-jobs.md, "Progress is versioned, with its event").
   * Returns the import's status after, or undefined when the batch was recorded before (or the
   * import is gone).
   */
  private async recordBatch(m: EntityManager, importId: string, o: BatchOutcome): Promise<string | undefined> {
    try {
      const { record, changed } = await this.deps.imports.inTransaction(m).mutate(importId, undefined, (r) => {
        if (r.next_row !== o.fromRow) return false;
        r.proccess_count += o.processed;
        r.commit_count += o.committed;
        r.errors_count += o.failed;
        r.next_row = o.nextRow;
      });
      return changed ? record.status : undefined;
    } catch (err) {
      if (err instanceof NotFoundError) return undefined; // deleted meanwhile
      throw err;
    }
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
