import { PassThrough } from 'node:stream';
import type { Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import { NotFoundError, PayloadTooLargeError, ValidationError, toPimError } from '@pim/errors';
import type { Logger } from '@pim/logging';
import type { RecordService } from '@pim/records';
import {
  EXPORT_PRODUCTS_MAX,
  type ExportFilters,
  type ExportHeader,
  type ExportInput,
  type ExportReportType,
  type ExportView,
} from '@pim/resources';
import { createSheetWriter, type SheetFormat } from '@pim/sheets';
import type { FileStorage } from '@pim/storage';
import type { ExportEntity } from '../entities/export.entity';
import { runJobAs } from '@pim/logging';
import type { CatalogLink, ImportAttribute } from '../links/catalog.link';
import type { WorkflowLink } from '../links/workflow.link';
import { jobOutcomes, type JobOutcome } from '../jobs/job.metrics';
import { fitCells, type Failures } from './export.cells';
import { NameCache } from './export.names';
import { selectionOf, type ExportSelection } from './export.query';
import { buildReport, eligibilityNames, headerAttributeKeys, type Product, type Report } from './export.report';
import { logExport } from './export.resource';

/** What the runner needs. */
export interface ExportRunnerDeps {
  ds: DataSource;
  exports: RecordService<ExportEntity, ExportView, ExportInput>;
  storage: FileStorage;
  catalog: CatalogLink;
  workflow: WorkflowLink;
  /** Products per batch read from the catalog. */
  batchSize: number;
  /** The largest file an export writes. */
  maxBytes: number;
  /** How long a completed export's file is kept. */
  retentionMs: number;
  /** How often a running export shows its counts. */
  progressMs: number;
  logger: Logger;
  /** The app's Prometheus registry: runs are counted on `pim_io_jobs_jobs_total{kind="export"}`. */
  metrics?: Registry;
}

const count = (n: number) => n.toLocaleString('en-US');

/** What an export has written so far. */
interface ExportProgress {
  total_products: number;
  total_field_failed: number;
  total_item_failed: number;
  rows: number;
}

/**
 * Runs one export's job: takes a pending export to `in_progress` (or starts a running one again
 * from the beginning after a crash: the file is replaced whole, never appended to), settles its
 * report's columns, reads the products its filters select from the catalog's keyset scan a batch
 * at a time, writes their rows through a streaming CSV or XLSX writer straight into file storage
 * (memory stays at a batch, whatever the size), and ends `completed` with its counts, size and
 * expiry — or `failed`, with the reason in its log, once no retry can mend it. The job runs as
 * the export's creator: what the catalog shows them is what the file holds.
 */
export class ExportRunner {
  private readonly outcomes?: ReturnType<typeof jobOutcomes>;

  constructor(private readonly deps: ExportRunnerDeps) {
    this.outcomes = deps.metrics && jobOutcomes(deps.metrics);
  }

  private counted(outcome: JobOutcome): void {
    this.outcomes?.inc({ kind: 'export', outcome });
  }

  /**
   * Runs the export's job as its creator (`run_as`: every catalog and workflow call carries them, so
   * the file holds the products their users groups see); a failure on the last try (or one no
   * retry can mend) marks the export failed.
   */
  async run(exportId: string, lastTry: boolean): Promise<void> {
    const record = await this.claim(exportId);
    if (!record) return;
    await runJobAs('export', exportId, record.run_as ?? null, async () => {
      try {
        await this.write(record);
      } catch (err) {
        // A refusal no retry can mend: a column gone, a file over the size limit.
        const permanent =
          err instanceof ValidationError || err instanceof NotFoundError || err instanceof PayloadTooLargeError;
        this.deps.logger.warn({ err, export_id: exportId, lastTry }, 'an export failed');
        if (!lastTry && !permanent) {
          await this.note(exportId, `This try failed (${toPimError(err).message}); it is tried again`);
          this.counted('retried');
          throw err;
        }
        await this.fail(exportId, err);
      }
    });
  }

  /** `pending` → `in_progress`; a running export (its worker crashed) starts again. */
  private async claim(exportId: string): Promise<ExportEntity | null> {
    try {
      const { record } = await this.deps.exports.mutate(exportId, undefined, (r) => {
        if (r.status === 'in_progress') {
          logExport(r, 'Started again from the beginning: the last try did not finish');
          return;
        }
        if (r.status !== 'pending') return false;
        r.status = 'in_progress';
        r.started_at = new Date();
        logExport(r, 'Started');
      });
      return record.status === 'in_progress' ? record : null;
    } catch (err) {
      if (err instanceof NotFoundError) return null; // deleted meanwhile
      throw err;
    }
  }

  /** The report of the export's type with its columns settled (the default ones from what the products use). */
  private async report(record: ExportEntity, selection: ExportSelection): Promise<Report> {
    const type = record.report_type as ExportReportType;
    const headers = (record.headers ?? []) as ExportHeader[];
    const filters = (record.filters ?? {}) as ExportFilters;
    const controlled = (filters.attr_control ?? []).map((a) => a.attributes.key);
    const described =
      (type === 'general' && headers.length === 0) || (type === 'per_attributes' && controlled.length === 0)
        ? await this.deps.catalog.describe(selection.query)
        : undefined;
    const attributeKeys =
      type === 'per_attributes'
        ? controlled.length > 0
          ? controlled
          : (described?.attribute_keys ?? [])
        : headers.length > 0
          ? headerAttributeKeys(headers)
          : (described?.attribute_keys ?? []);
    const attributes = new Map<string, ImportAttribute>(
      (await this.deps.catalog.attributes(attributeKeys)).map((a) => [a.key, a]),
    );
    return buildReport(type, {
      headers,
      attributeKeys,
      attributes,
      languages: described?.languages ?? [],
      timeZone: record.time_zone,
    });
  }

  private async write(record: ExportEntity): Promise<void> {
    const selection = selectionOf((record.filters ?? {}) as ExportFilters);
    const report = await this.report(record, selection);
    const format = record.file_type as SheetFormat;
    const out = new PassThrough();
    const stored = this.deps.storage.put(record.file_key, out, { maxBytes: this.deps.maxBytes });
    stored.catch(() => undefined); // awaited below; never an unhandled rejection meanwhile
    const writer = createSheetWriter(format, out, {
      worksheetName: 'Products',
      bom: record.csv_bom,
      neutralizeFormulas: record.csv_neutralize_formulas,
      timeZone: record.time_zone,
    });
    const fail: Failures = { fields: 0 };
    const progress: ExportProgress = { total_products: 0, total_field_failed: 0, total_item_failed: 0, rows: 0 };
    const products: string[] = [];
    const names = new NameCache(this.deps.catalog);
    let shown = Date.now();
    try {
      await writer.write(report.header);
      for await (const scanned of this.deps.catalog.scan(selection.query, this.deps.batchSize)) {
        const batch = await this.narrow(scanned, selection);
        if (batch.length === 0) continue;
        const relations = report.relationTypes.length
          ? await this.deps.catalog.relations(
              batch.map((p) => p.id),
              report.relationTypes,
            )
          : [];
        await names.load([...batch.flatMap((p) => report.namesOf(p)), ...eligibilityNames(relations)]);
        const byProduct = new Map<string, typeof relations>();
        for (const r of relations) byProduct.set(r.product_id, [...(byProduct.get(r.product_id) ?? []), r]);
        const ctx = {
          names: (c: Parameters<NameCache['get']>[0], id: string | undefined) => names.get(c, id),
          relationsOf: (id: string) => byProduct.get(id) ?? [],
          attributes: report.attributes,
          fail,
        };
        for (const p of batch) {
          let rows;
          try {
            rows = report.rows(p, ctx);
          } catch (err) {
            progress.total_item_failed += 1;
            this.deps.logger.warn({ err, export_id: record._id, product: p.id }, 'a product row could not be built');
            continue;
          }
          for (const cells of rows) await writer.write(format === 'xlsx' ? fitCells(cells, fail) : cells);
          progress.rows += rows.length;
          progress.total_products += 1;
          if (products.length <= EXPORT_PRODUCTS_MAX) products.push(p.id);
        }
        progress.total_field_failed = fail.fields;
        if (Date.now() - shown >= this.deps.progressMs) {
          shown = Date.now();
          await this.showProgress(record._id, progress);
        }
      }
      await writer.end();
    } catch (err) {
      out.destroy(err as Error);
      // The storage's refusal (a file over EXPORT_MAX_BYTES) is the cause when there is one.
      throw (
        (await stored.then(
          () => undefined,
          (e: unknown) => e,
        )) ?? err
      );
    }
    const file = await stored;
    progress.total_field_failed = fail.fields;
    await this.complete(record._id, progress, file.bytes, products.length <= EXPORT_PRODUCTS_MAX ? products : []);
  }

  /** A batch without the products the catalog could not rule out: `fulfilled: false` and the approval filters. */
  private async narrow(batch: Product[], selection: ExportSelection): Promise<Product[]> {
    let kept = selection.unfulfilledOnly ? batch.filter((p) => !((p.fulfilled ?? 0) > 0)) : batch;
    if (selection.approval && kept.length > 0) {
      const approved = await this.deps.workflow.productsWithApproval(
        kept.map((p) => p.id),
        selection.approval,
      );
      kept = kept.filter((p) => approved.has(p.id));
    }
    return kept;
  }

  /**
   * Shows a running export's counts so far while it is `in_progress`: a new version with its
   * `exports.updated` event, so ETags follow the counts (docs/decisions/io-jobs.md, "Progress is
   * versioned, with its event"); the final counts come with `exports.completed`.
   */
  private async showProgress(exportId: string, p: ExportProgress): Promise<void> {
    await this.deps.exports
      .mutate(exportId, undefined, (r) => {
        if (r.status !== 'in_progress') return false;
        r.metadata = {
          total_products: p.total_products,
          total_field_failed: p.total_field_failed,
          total_item_failed: p.total_item_failed,
        };
        r.rows_count = p.rows;
      })
      .catch((e: unknown) => {
        if (!(e instanceof NotFoundError)) throw e; // deleted meanwhile: nothing to show
      });
  }

  /** `completed`: the counts, the file's size and when it expires. */
  private async complete(exportId: string, p: ExportProgress, bytes: number, products: string[]): Promise<void> {
    const { changed } = await this.deps.exports.mutate(exportId, undefined, (r) => {
      if (r.status !== 'in_progress') return false;
      const now = new Date();
      Object.assign(r, {
        status: 'completed',
        finished_at: now,
        expires_at: new Date(now.getTime() + this.deps.retentionMs),
        metadata: {
          total_products: p.total_products,
          total_field_failed: p.total_field_failed,
          total_item_failed: p.total_item_failed,
        },
        rows_count: p.rows,
        file_size: bytes,
        products,
      });
      logExport(
        r,
        `Completed: ${count(p.total_products)} products in ${count(p.rows)} rows, ${count(bytes)} bytes` +
          (p.total_field_failed || p.total_item_failed
            ? `; ${count(p.total_field_failed)} values and ${count(p.total_item_failed)} products could not be written`
            : ''),
      );
      return { event: 'completed' };
    });
    if (changed) this.counted('completed');
  }

  /** A line in a running export's log. */
  private async note(exportId: string, line: string): Promise<void> {
    await this.deps.exports
      .mutate(exportId, undefined, (r) => {
        if (r.status !== 'in_progress') return false;
        logExport(r, line);
      })
      .catch((e: unknown) => this.deps.logger.warn({ err: e, export_id: exportId }, 'could not log on the export'));
  }

  /** `failed`, with the reason in the log. */
  private async fail(exportId: string, err: unknown): Promise<void> {
    const reason = toPimError(err).message;
    await this.deps.exports
      .mutate(exportId, undefined, (r) => {
        if (r.status !== 'in_progress' && r.status !== 'pending') return false;
        r.status = 'failed';
        r.finished_at = new Date();
        logExport(r, `Failed: ${reason}`);
        return { event: 'failed' };
      })
      .then(({ changed }) => changed && this.counted('failed'))
      .catch((e: unknown) => {
        if (!(e instanceof NotFoundError)) throw e;
      });
  }
}
