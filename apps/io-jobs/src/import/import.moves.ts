import type { RecordService } from '@pim/records';
import { FINAL_IMPORT_STATUSES, type ImportInput, type ImportStatus, type ImportView } from '@pim/resources';
import type { ImportEntity } from '../entities/import.entity';
import type { JobQueue, QueueSpec } from '../jobs/job.queue';
import { currentRunAs } from '@pim/logging';
import { notNow } from './import.resource';

/** What an import's job carries. */
export interface ImportJob {
  import_id: string;
}

const NOT_FINAL: readonly ImportStatus[] = ['uploaded', 'mapped', 'queued', 'processing'];

/** Adds a line to an import's bounded log (the oldest lines give way). */
export function log(record: ImportEntity, line: string): void {
  record.logs = [...((record.logs as string[] | null) ?? []), `${new Date().toISOString()} ${line}`].slice(-200);
}

/** A caller's moves of an import: start (queue it for a worker) and cancel. */
export class ImportMoves {
  constructor(
    private readonly imports: RecordService<ImportEntity, ImportView, ImportInput>,
    private readonly queue: JobQueue,
    private readonly spec: QueueSpec,
  ) {}

  /**
   * `mapped` → `queued`, its job queued in the same transaction; the caller who starts it is who
   * its job runs as (`run_as`: its lookups and writes are theirs).
   */
  async start(id: string, expectedVersion?: number): Promise<ImportView> {
    const { view } = await this.imports.mutate(id, expectedVersion, async (record, m) => {
      if (record.status !== 'mapped')
        throw notNow(
          record,
          record.status === 'uploaded' ? 'map its columns first (PATCH mapped_headers)' : 'it cannot start',
          ['mapped'],
          'queued',
        );
      record.status = 'queued';
      record.run_as = currentRunAs();
      log(record, 'Queued');
      await this.queue.enqueue(m, this.spec, { import_id: record._id } satisfies ImportJob);
    });
    return view;
  }

  /**
   * Any state before a final one → `canceled`. A queued import's job finds it canceled and does
   * nothing; a running one stops after the batches it has sent (at most two; its counts include them).
   */
  async cancel(id: string, expectedVersion?: number): Promise<ImportView> {
    const { view } = await this.imports.mutate(id, expectedVersion, (record) => {
      if (FINAL_IMPORT_STATUSES.includes(record.status))
        throw notNow(record, 'a finished import cannot be canceled', NOT_FINAL, 'canceled');
      log(record, `Canceled while ${record.status}`);
      record.status = 'canceled';
      record.finished_at = new Date();
    });
    return view;
  }
}
