import { PgBoss, type Job } from 'pg-boss';
import type { EntityManager } from 'typeorm';
import type { Logger } from '@pim/logging';

/** The queue import jobs wait in. */
export const IMPORT_QUEUE = 'imports';

/** What an import's job carries. */
export interface ImportJob {
  import_id: string;
}

/** How import jobs are queued and taken. */
export interface ImportQueueOptions {
  url: string;
  /** The app's schema: the queue's tables live beside its own. */
  schema: string;
  /** Tries before the job fails for good (each resumes where the last one stopped). */
  attempts: number;
  /** Seconds without a heartbeat after which a job's worker is taken to be gone. */
  heartbeatSeconds: number;
  /** How often a replica looks for jobs whose worker is gone. */
  superviseSeconds: number;
  logger: Logger;
}

/**
 * The job queue of imports, on pg-boss in the app's own schema: a job is queued in the same
 * transaction as the import's move to `queued` (so neither exists without the other), taken by
 * one worker of any replica, kept alive by heartbeats while it runs, and given to another worker
 * when its worker stops beating (a crashed process), with a backoff between tries.
 */
export class ImportQueue {
  readonly boss: PgBoss;

  constructor(private readonly opts: ImportQueueOptions) {
    this.boss = new PgBoss({
      connectionString: opts.url,
      schema: opts.schema,
      max: 3,
      application_name: 'pim-io-jobs-queue',
      superviseIntervalSeconds: opts.superviseSeconds,
      // Jobs whose heartbeat stopped are failed (and retried) by the monitor pass, not by supervision:
      // without this a crashed worker's import would wait up to a minute to resume.
      monitorIntervalSeconds: opts.superviseSeconds,
      schedule: false,
    });
    this.boss.on('error', (err) => opts.logger.warn({ err }, 'the import queue met an error; it carries on'));
  }

  /** Installs or upgrades the queue's tables (pg-boss migrates under its own lock) and the imports queue. */
  async start(): Promise<void> {
    await this.boss.start();
    await this.boss.createQueue(IMPORT_QUEUE, {
      retryLimit: this.opts.attempts - 1,
      retryDelay: 1,
      retryBackoff: true,
      retryDelayMax: 300,
      heartbeatSeconds: this.opts.heartbeatSeconds,
      // A long import is alive as long as it beats; this only bounds a job that beats forever.
      expireInSeconds: 24 * 3_600,
    });
  }

  /** Queues an import's job inside the caller's transaction. */
  async enqueue(m: EntityManager, importId: string): Promise<void> {
    await this.boss.send(IMPORT_QUEUE, { import_id: importId } satisfies ImportJob, {
      db: { executeSql: async (text, values) => ({ rows: await m.query(text, values as unknown[]) }) },
    });
  }

  /** Runs `handle` for each job taken, `concurrency` at a time in this process. */
  async work(concurrency: number, handle: (job: Job<ImportJob>, lastTry: boolean) => Promise<void>): Promise<void> {
    await this.boss.work<ImportJob>(
      IMPORT_QUEUE,
      { batchSize: 1, localConcurrency: concurrency, pollingIntervalSeconds: 2 },
      async ([job]) => handle(job, job.retryCount >= this.opts.attempts - 1),
    );
  }

  /** Stops taking jobs, lets running ones end (up to `graceMs`), and closes the queue's connections. */
  async stop(graceMs: number): Promise<void> {
    await this.boss.stop({ graceful: true, timeout: graceMs, close: true });
  }
}
