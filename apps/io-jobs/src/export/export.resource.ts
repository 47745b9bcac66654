import { AuthorizationError, type ConflictError, ValidationError, stateConflict } from '@pim/errors';
import { declaredRecord, runAsOwnedAudience } from '@pim/records';
import {
  Export,
  UTC,
  canonicalTimeZone,
  type ExportFilters,
  type ExportHeader,
  type ExportReportType,
  type ExportStatus,
} from '@pim/resources';
import { ExportEntity } from '../entities/export.entity';
import type { JobQueue, QueueSpec } from '../jobs/job.queue';
import { currentRunAs } from '@pim/logging';
import type { CatalogLink } from '../links/catalog.link';
import { buildReport, headerAttributeKey, headerAttributeKeys } from './export.report';
import { selectionOf } from './export.query';

/** What an export's job carries. */
export interface ExportJob {
  export_id: string;
}

/** A 409 for a move the export's state does not allow (`to`: the state the move would take it to). */
export function exportNotNow(
  record: { _id: string; status: string },
  what: string,
  allowed: readonly ExportStatus[],
  to?: ExportStatus,
): ConflictError {
  return stateConflict('Export', record, what, allowed, to);
}

/** Adds a line to an export's bounded log (the oldest lines give way). */
export function logExport(record: ExportEntity, line: string): void {
  record.logs = [...((record.logs as string[] | null) ?? []), `${new Date().toISOString()} ${line}`].slice(-200);
}

/** The name a download gets: the caller's (with the format's extension added when missing), or one made from the report and day. */
export function exportFileName(
  given: string | null | undefined,
  reportType: string,
  fileType: string,
  at: Date,
): string {
  const ext = `.${fileType}`;
  if (given) return given.toLowerCase().endsWith(ext) ? given : `${given}${ext}`;
  return `products-${reportType.replace(/_/g, '-')}-${at.toISOString().slice(0, 10)}${ext}`;
}

/**
 * Checks at creation what a worker could only fail on later: the attributes `attr_control` names
 * are live, and every column the headers name exists for the report type (a general report's
 * attribute columns name live attributes, with a language only for a localizable text).
 */
async function checkColumns(catalog: CatalogLink, next: ExportEntity): Promise<void> {
  const headers = (next.headers ?? []) as ExportHeader[];
  const controlled = ((next.filters ?? {}) as ExportFilters).attr_control?.map((a) => a.attributes.key) ?? [];
  const type = next.report_type as ExportReportType;
  const keys = [...new Set([...controlled, ...(type === 'general' ? headerAttributeKeys(headers) : [])])];
  const attributes = new Map((await catalog.attributes(keys)).map((a) => [a.key, a]));
  const unknown = controlled.flatMap((key, i) =>
    attributes.has(key)
      ? []
      : [{ field: `filters.attr_control.${i}.attributes.key`, message: `names no live attribute '${key}'` }],
  );
  if (unknown.length > 0)
    throw new ValidationError(unknown.map((d) => `${d.field} ${d.message}`).join('; '), {
      title: 'Unknown attribute',
      solution: 'Name attributes by the key of a live attribute (GET /api/v1/attributes)',
      details: unknown,
    });
  if (headers.length > 0) buildReport(type, { headers, attributeKeys: keys, attributes, languages: [] });
  await refuseHidden(catalog, next, controlled, type === 'general' ? headerAttributeKeys(headers) : []);
}

/**
 * Refuses, as the export's creator, filters and columns naming attributes hidden from them (403):
 * the export runs as them later, and its file would tell which products hold such a value. The
 * catalog's refusal names `attributes.<key>`; the error names the export's own fields too.
 */
async function refuseHidden(
  catalog: CatalogLink,
  next: ExportEntity,
  controlled: string[],
  columns: string[],
): Promise<void> {
  // Only attr_control and attribute columns name attributes (the other filters are the product list's own).
  if (controlled.length === 0 && columns.length === 0) return;
  try {
    await catalog.checkQuery(selectionOf((next.filters ?? {}) as ExportFilters).query, [
      ...new Set([...controlled, ...columns]),
    ]);
  } catch (err) {
    if (!(err instanceof AuthorizationError)) throw err;
    const hidden = new Set(
      (err.details ?? []).flatMap((d) =>
        d.field.startsWith('attributes.') ? [d.field.slice('attributes.'.length)] : [],
      ),
    );
    const details = [
      ...controlled.flatMap((key, i) =>
        hidden.has(key)
          ? [{ field: `filters.attr_control.${i}.attributes.key`, message: 'is hidden from your user' }]
          : [],
      ),
      ...(columns.length > 0 ? ((next.headers ?? []) as ExportHeader[]) : []).flatMap((h, i) =>
        hidden.has(headerAttributeKey(h) ?? '') ? [{ field: `headers.${i}`, message: 'is hidden from your user' }] : [],
      ),
    ];
    throw new AuthorizationError(err.message, {
      title: err.title,
      solution: err.solution,
      details: [...(err.details ?? []), ...details],
    });
  }
}

/**
 * Exports on the record engine. Created `pending` with their job queued in the same transaction
 * (so a worker of any replica takes it) and their creator kept as who the job runs as (`run_as`:
 * the file holds the products the creator's users groups see), then moved only by the worker
 * (in_progress, completed, failed) and by retry (which keeps the creator). Identified by `_id`
 * alone; never replaced or patched. One being written is not deleted. A caller restricted by users
 * groups sees only the exports they created (`runAsOwnedAudience`): the file of another holds what
 * its creator saw.
 */
export const exportRecord = (deps: { queue: JobQueue; spec: QueueSpec; catalog: CatalogLink }) =>
  declaredRecord(Export, {
    entity: ExportEntity,
    handle: '_id',
    audience: runAsOwnedAudience(),
    hooks: {
      async beforeWrite(m, next, prev) {
        if (prev) return; // exports are never changed by a caller after creation
        await checkColumns(deps.catalog, next);
        next.time_zone = canonicalTimeZone(next.time_zone) ?? UTC;
        Object.assign(next, {
          status: 'pending',
          file_key: `exports/${next.created_at.toISOString().slice(0, 7)}/${next._id}.${next.file_type}`,
          file_name: exportFileName(next.file_name, next.report_type, next.file_type, next.created_at),
          metadata: { total_products: 0, total_field_failed: 0, total_item_failed: 0 },
          rows_count: 0,
          products: [],
          downloaded_by: [],
          run_as: currentRunAs(),
        });
        logExport(next, 'Queued');
        await deps.queue.enqueue(m, deps.spec, { export_id: next._id } satisfies ExportJob);
      },
      async beforeDelete(_m, record) {
        if (record.status === 'in_progress')
          throw exportNotNow(record, 'an export being written is not deleted; wait until it ends', [
            'pending',
            'completed',
            'failed',
          ]);
      },
    },
  });
