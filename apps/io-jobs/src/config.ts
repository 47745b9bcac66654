import { z } from 'zod';
import { flag, loadConfig, ownerSchema, port, positiveInt } from '@pim/config';

/** Environment of the io-jobs app. */
export const ioJobsConfigSchema = ownerSchema.extend({
  IO_JOBS_GRPC_PORT: port(50060),
  /** Prometheus metrics on http://0.0.0.0:<port>/metrics; 0 (the default) turns them off. */
  IO_JOBS_METRICS_PORT: port(0),
  /** The catalog app's gRPC address: imported rows go to its bulk upsert. */
  CATALOG_GRPC_URL: z.string().min(1).default('127.0.0.1:50051'),
  /** The directory uploaded and generated files are kept in (`npm start` puts it under its data directory). */
  FILES_DIR: z.string().min(1).default('.data/files'),
  /** The largest upload, in bytes (default 200 MiB); a larger one is refused with 413 before it is all stored. */
  UPLOAD_MAX_BYTES: positiveInt(200 * 1024 * 1024),
  /** Rows an import sends to the catalog at once (at most 1,000, the catalog's bulk limit). */
  IMPORT_BATCH_SIZE: z.coerce.number().int().min(1).max(1_000).default(1_000),
  /** Run import workers in this process. */
  IMPORT_WORKER: flag(true),
  /** Imports one process runs at once. */
  IMPORT_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
  /**
   * Seconds without a heartbeat after which an import's job is taken to have lost its worker (a
   * crashed process) and is given to another; at least 10.
   */
  IMPORT_HEARTBEAT_SECONDS: z.coerce.number().int().min(10).max(3_600).default(30),
  /** How often a replica looks for import jobs whose worker stopped beating. */
  IMPORT_SUPERVISE_SECONDS: z.coerce.number().int().min(1).max(3_600).default(10),
  /** Tries of an import's job before the import is marked failed (each resumes where the last stopped). */
  IMPORT_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(10),
});

/** Parsed environment of the io-jobs app. */
export type IoJobsConfig = z.infer<typeof ioJobsConfigSchema>;

/** Reads and validates the environment once. */
export const readConfig = (env: NodeJS.ProcessEnv = process.env): IoJobsConfig => loadConfig(ioJobsConfigSchema, env);
