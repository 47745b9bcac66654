import { resolve } from 'node:path';
import type { AppSpec } from '@pim/app';
import { PROTO_FILES } from '@pim/contracts';
import { RecordService } from '@pim/records';
import { LocalFileStorage } from '@pim/storage';
import { readConfig, type IoJobsConfig } from './config';
import { SCHEMA, dataSourceOptions } from './data-source';
import { IO_JOBS_STORE } from './io-jobs.records';
import { importTemplateRecord } from './import-template/import-template.resource';
import { importTemplatesGrpc } from './import-template/import-template.grpc';
import { importRecord } from './import/import.resource';
import { importsGrpc } from './import/import.grpc';
import { ImportMoves } from './import/import.moves';
import { ImportQueue } from './import/import.queue';
import { ImportRunner } from './import/import.runner';
import { ImportUploads } from './import/import.upload';
import { importWorker } from './import/import.worker';
import { catalogLink } from './links/catalog.link';

/**
 * The io-jobs app as the bootstrap runs it: imports (uploads streamed to file storage, mapped,
 * queued on pg-boss and run through the catalog's bulk upsert by workers of any replica) and
 * import templates, on the record engine.
 */
export const ioJobsApp: AppSpec<IoJobsConfig> = {
  name: 'io-jobs',
  dir: __dirname,
  config: readConfig,
  dataSource: dataSourceOptions,
  grpc: { port: (c) => c.IO_JOBS_GRPC_PORT, protoFiles: [PROTO_FILES.ioJobs] },
  metricsPort: (c) => c.IO_JOBS_METRICS_PORT,
  wire: ({ ds, logger, config }) => {
    const storage = new LocalFileStorage(resolve(config.FILES_DIR));
    const catalog = catalogLink(config.CATALOG_GRPC_URL);
    const imports = new RecordService(ds, importRecord({ storage, catalog }), IO_JOBS_STORE);
    const queue = new ImportQueue({
      url: config.DATABASE_URL,
      schema: SCHEMA,
      attempts: config.IMPORT_ATTEMPTS,
      heartbeatSeconds: config.IMPORT_HEARTBEAT_SECONDS,
      superviseSeconds: config.IMPORT_SUPERVISE_SECONDS,
      logger,
    });
    const runner = new ImportRunner({ ds, imports, storage, catalog, batchSize: config.IMPORT_BATCH_SIZE, logger });
    return {
      services: [
        importTemplatesGrpc(new RecordService(ds, importTemplateRecord, IO_JOBS_STORE), logger),
        importsGrpc(
          {
            ds,
            imports,
            storage,
            uploads: new ImportUploads(imports, storage, config.UPLOAD_MAX_BYTES),
            moves: new ImportMoves(imports, queue),
          },
          logger,
        ),
      ],
      loops: [
        importWorker(queue, runner, {
          concurrency: config.IMPORT_CONCURRENCY,
          work: config.IMPORT_WORKER,
          graceMs: config.SHUTDOWN_GRACE_MS,
        }),
      ],
      close: [() => catalog.close()],
      started: { files: resolve(config.FILES_DIR), import_worker: config.IMPORT_WORKER },
    };
  },
};
