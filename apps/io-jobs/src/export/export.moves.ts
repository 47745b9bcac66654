import type { Readable } from 'node:stream';
import { GoneError } from '@pim/errors';
import { currentContext } from '@pim/logging';
import type { RecordService } from '@pim/records';
import type { ExportInput, ExportView } from '@pim/resources';
import { SHEET_CONTENT_TYPES, type SheetFormat } from '@pim/sheets';
import type { FileStorage } from '@pim/storage';
import type { ExportEntity } from '../entities/export.entity';
import type { JobQueue, QueueSpec } from '../jobs/job.queue';
import { exportNotNow, logExport, type ExportJob } from './export.resource';

/** A completed export's file, ready to stream. */
export interface ExportDownload {
  fileName: string;
  contentType: string;
  size: number;
  bytes: Readable;
}

/** A caller's moves of an export: retry a failed one, and download a completed one. */
export class ExportMoves {
  constructor(
    private readonly exports: RecordService<ExportEntity, ExportView, ExportInput>,
    private readonly queue: JobQueue,
    private readonly spec: QueueSpec,
    private readonly storage: FileStorage,
  ) {}

  /** `failed` → `pending`, its counts cleared and its job queued again in the same transaction. */
  async retry(id: string, expectedVersion?: number): Promise<ExportView> {
    const { view } = await this.exports.mutate(id, expectedVersion, async (record, m) => {
      if (record.status !== 'failed')
        throw exportNotNow(record, 'only a failed export is retried', ['failed'], 'pending');
      Object.assign(record, {
        status: 'pending',
        started_at: null,
        finished_at: null,
        metadata: { total_products: 0, total_field_failed: 0, total_item_failed: 0 },
        rows_count: 0,
        products: [],
      });
      logExport(record, 'Retried: queued again');
      await this.queue.enqueue(m, this.spec, { export_id: record._id } satisfies ExportJob);
    });
    return view;
  }

  /**
   * A completed export's file: 409 before it is completed, 410 once past its retention (or when
   * the file is gone). The caller's user joins `downloaded_by` once (a key bound to no user adds
   * no one).
   */
  async download(id: string): Promise<ExportDownload> {
    const record = await this.exports.get(id);
    if (record.status !== 'completed') throw exportNotNow(record, 'its file is not written yet', ['completed']);
    const expired = record.expires_at !== undefined && new Date(record.expires_at).getTime() <= Date.now();
    const stored = expired ? undefined : await this.storage.stat(record.file_key);
    if (!stored) {
      throw new GoneError(
        expired
          ? `Export '${id}' expired on ${record.expires_at}: its file is no longer kept`
          : `Export '${id}' has lost its file`,
        { title: 'Export expired', solution: 'Create the export again with the same filters and headers' },
      );
    }
    const bytes = await this.storage.get(record.file_key);
    const user = currentContext()?.actor?.user_id;
    if (user && !record.downloaded_by.includes(user)) {
      await this.exports.mutate(id, undefined, (r) => {
        const by = (r.downloaded_by as string[] | null) ?? [];
        if (by.includes(user)) return false;
        r.downloaded_by = [...by, user];
      });
    }
    return {
      fileName: record.file_name ?? `export.${record.file_type}`,
      contentType: SHEET_CONTENT_TYPES[record.file_type as SheetFormat],
      size: stored.bytes,
      bytes,
    };
  }
}
