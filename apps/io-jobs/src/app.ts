import { resolve } from 'node:path';
import type { AppSpec } from '@pim/app';
import { PROTO_FILES } from '@pim/contracts';
import { RecordService } from '@pim/records';
import { LocalFileStorage } from '@pim/storage';
import { readConfig, type IoJobsConfig } from './config';
import { SCHEMA, dataSourceOptions } from './data-source';
import { exportRecord } from './export/export.resource';
import { exportsGrpc } from './export/export.grpc';
import { ExportMoves } from './export/export.moves';
import { ExportRunner } from './export/export.runner';
import { exportSweeper } from './export/export.sweeper';
import { IO_JOBS_STORE } from './io-jobs.records';
import { importTemplateRecord } from './import-template/import-template.resource';
import { importTemplatesGrpc } from './import-template/import-template.grpc';
import { importRecord } from './import/import.resource';
import { importsGrpc } from './import/import.grpc';
import { ImportMoves, type ImportJob } from './import/import.moves';
import { ImportRunner } from './import/import.runner';
import { ImportUploads } from './import/import.upload';
import { JobQueue, type QueueSpec } from './jobs/job.queue';
import { catalogLink } from './links/catalog.link';
import { workflowLink } from './links/workflow.link';
import type { ExportJob } from './export/export.resource';

/**
 * The io-jobs app as the bootstrap runs it: imports (uploads streamed to file storage, mapped,
 * queued and run through the catalog's bulk upsert), import templates, and exports (queued, written
 * from the catalog's scan straight into file storage, downloaded, expired), on the record engine.
 * Jobs of both kinds wait in pg-boss queues and are taken by workers of any replica.
 */
export const ioJobsApp: AppSpec<IoJobsConfig> = {
  name: 'io-jobs',
  dir: __dirname,
  config: readConfig,
  dataSource: dataSourceOptions,
  grpc: { port: (c) => c.IO_JOBS_GRPC_PORT, protoFiles: [PROTO_FILES.ioJobs] },
  metricsPort: (c) => c.IO_JOBS_METRICS_PORT,
  wire: ({ ds, logger, config, metrics }) => {
    const storage = new LocalFileStorage(resolve(config.FILES_DIR));
    const catalog = catalogLink(config.CATALOG_GRPC_URL);
    const workflow = workflowLink(config.WORKFLOW_GRPC_URL);
    const queue = new JobQueue({
      url: config.DATABASE_URL,
      schema: SCHEMA,
      heartbeatSeconds: config.IMPORT_HEARTBEAT_SECONDS,
      superviseSeconds: config.IMPORT_SUPERVISE_SECONDS,
      logger,
    });
    const importQueue: QueueSpec = { name: 'imports', attempts: config.IMPORT_ATTEMPTS };
    const exportQueue: QueueSpec = { name: 'exports', attempts: config.EXPORT_ATTEMPTS };
    const imports = new RecordService(
      ds,
      importRecord({ storage, catalog, defaultTimeZone: config.PIM_DEFAULT_TIME_ZONE }),
      IO_JOBS_STORE,
    );
    const exports = new RecordService(ds, exportRecord({ queue, spec: exportQueue, catalog }), IO_JOBS_STORE);
    const importRunner = new ImportRunner({
      ds,
      imports,
      storage,
      catalog,
      batchSize: config.IMPORT_BATCH_SIZE,
      logger,
      metrics,
    });
    const exportRunner = new ExportRunner({
      ds,
      exports,
      storage,
      catalog,
      workflow,
      batchSize: config.EXPORT_BATCH_SIZE,
      maxBytes: config.EXPORT_MAX_BYTES,
      retentionMs: config.EXPORT_RETENTION_HOURS * 3_600_000,
      progressMs: config.EXPORT_PROGRESS_MS,
      logger,
      metrics,
    });
    return {
      services: [
        importTemplatesGrpc(new RecordService(ds, importTemplateRecord, IO_JOBS_STORE), logger),
        importsGrpc(
          {
            ds,
            imports,
            storage,
            uploads: new ImportUploads(imports, storage, config.UPLOAD_MAX_BYTES),
            moves: new ImportMoves(imports, queue, importQueue),
          },
          logger,
        ),
        exportsGrpc({ exports, storage, moves: new ExportMoves(exports, queue, exportQueue, storage) }, logger),
      ],
      loops: [
        queue.loop(
          [
            {
              queue: importQueue,
              concurrency: config.IMPORT_CONCURRENCY,
              work: config.IMPORT_WORKER,
              run: (job: ImportJob, lastTry) => importRunner.run(job.import_id, lastTry),
            },
            {
              queue: exportQueue,
              concurrency: config.EXPORT_CONCURRENCY,
              work: config.EXPORT_WORKER,
              run: (job: ExportJob, lastTry) => exportRunner.run(job.export_id, lastTry),
            },
          ],
          config.SHUTDOWN_GRACE_MS,
        ),
        exportSweeper(ds, storage, config.EXPORT_SWEEP_SECONDS * 1_000, logger),
      ],
      close: [() => catalog.close(), () => workflow.close()],
      started: {
        files: resolve(config.FILES_DIR),
        import_worker: config.IMPORT_WORKER,
        export_worker: config.EXPORT_WORKER,
      },
    };
  },
};
