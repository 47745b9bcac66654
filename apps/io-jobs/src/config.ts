import { z } from 'zod';
import { flag, loadConfig, ownerSchema, port, positiveInt } from '@pim/config';
import { UTC, canonicalTimeZone, isTimeZone } from '@pim/resources';

/** Environment of the io-jobs app. */
export const ioJobsConfigSchema = ownerSchema.extend({
  IO_JOBS_GRPC_PORT: port(50060),
  /** Prometheus metrics on http://0.0.0.0:<port>/metrics; 0 (the default) turns them off. */
  IO_JOBS_METRICS_PORT: port(0),
  /** The catalog app's gRPC address: imported rows go to its bulk upsert. */
  CATALOG_GRPC_URL: z.string().min(1).default('127.0.0.1:50051'),
  /** The workflow app's gRPC address: exports filtered by product approvals ask it. */
  WORKFLOW_GRPC_URL: z.string().min(1).default('127.0.0.1:50058'),
  /** The directory uploaded and generated files are kept in (`npm start` puts it under its data directory). */
  FILES_DIR: z.string().min(1).default('.data/files'),
  /** The largest upload, in bytes (default 200 MiB); a larger one is refused with 413 before it is all stored. */
  UPLOAD_MAX_BYTES: positiveInt(200 * 1024 * 1024),
  /**
   * The IANA time zone (America/Sao_Paulo) an import reads date-times without an offset in, when
   * neither the import nor its template names one (default UTC).
   */
  PIM_DEFAULT_TIME_ZONE: z
    .string()
    .default(UTC)
    .refine(isTimeZone, 'is not a time zone: set an IANA name such as America/Sao_Paulo, or UTC')
    .transform((zone) => canonicalTimeZone(zone) ?? UTC),
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
  /** Run export workers in this process. */
  EXPORT_WORKER: flag(true),
  /** Exports one process writes at once. */
  EXPORT_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
  /** Tries of an export's job before the export is marked failed (each starts the file again). */
  EXPORT_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(5),
  /** Products an export reads from the catalog at once (1 to 1,000). */
  EXPORT_BATCH_SIZE: z.coerce.number().int().min(1).max(1_000).default(1_000),
  /** The largest file an export writes, in bytes (default 8 GiB); a bigger one fails the export. */
  EXPORT_MAX_BYTES: positiveInt(8 * 1024 * 1024 * 1024),
  /** Hours a completed export's file is kept (default 7 days); a download after that is a 410. */
  EXPORT_RETENTION_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 366)
    .default(168),
  /** How often a replica removes export files past their retention. */
  EXPORT_SWEEP_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  /** How often a running export shows its counts (milliseconds). */
  EXPORT_PROGRESS_MS: z.coerce.number().int().min(100).max(600_000).default(2_000),
});

/** Parsed environment of the io-jobs app. */
export type IoJobsConfig = z.infer<typeof ioJobsConfigSchema>;

/** Reads and validates the environment once. */
export const readConfig = (env: NodeJS.ProcessEnv = process.env): IoJobsConfig => loadConfig(ioJobsConfigSchema, env);
