import { PgBoss, type Job } from 'pg-boss';
import type { EntityManager } from 'typeorm';
import type { BackgroundLoop } from '@pim/app';
import { contextFromTraceparent, inSpan, SpanKind, traceContextOf, tracingEnabled, type Logger } from '@pim/logging';

/** A queue of jobs of one kind: its name and how many times a job is tried before it fails for good. */
export interface QueueSpec {
  name: string;
  attempts: number;
}

/** How jobs are queued and taken. */
export interface JobQueueOptions {
  url: string;
  /** The app's schema: the queue's tables live beside its own. */
  schema: string;
  /** Seconds without a heartbeat after which a job's worker is taken to be gone. */
  heartbeatSeconds: number;
  /** How often a replica looks for jobs whose worker is gone. */
  superviseSeconds: number;
  logger: Logger;
}

/** Workers of one queue in this process: how many at once, whether at all, and what runs a job. */
export interface QueueWorkers<T extends object> {
  queue: QueueSpec;
  concurrency: number;
  work: boolean;
  run(data: T, lastTry: boolean): Promise<void>;
}

/**
 * The io-jobs app's job queues (imports, exports) on one pg-boss in the app's own schema: a job is
 * queued in the same transaction as its record's move (so neither exists without the other), taken
 * by one worker of any replica, kept alive by heartbeats while it runs, and given to another worker
 * when its worker stops beating (a crashed process), with a backoff between tries.
 */
export class JobQueue {
  readonly boss: PgBoss;

  constructor(private readonly opts: JobQueueOptions) {
    this.boss = new PgBoss({
      connectionString: opts.url,
      schema: opts.schema,
      max: 3,
      application_name: 'pim-io-jobs-queue',
      superviseIntervalSeconds: opts.superviseSeconds,
      // Jobs whose heartbeat stopped are failed (and retried) by the monitor pass, not by supervision:
      // without this a crashed worker's job would wait up to a minute to resume.
      monitorIntervalSeconds: opts.superviseSeconds,
      schedule: false,
    });
    this.boss.on('error', (err) => opts.logger.warn({ err }, 'the job queue met an error; it carries on'));
  }

  /** Installs or upgrades the queue's tables (pg-boss migrates under its own lock) and the queues. */
  async start(queues: readonly QueueSpec[]): Promise<void> {
    await this.boss.start();
    for (const queue of queues)
      await this.boss.createQueue(queue.name, {
        retryLimit: queue.attempts - 1,
        retryDelay: 1,
        retryBackoff: true,
        retryDelayMax: 300,
        heartbeatSeconds: this.opts.heartbeatSeconds,
        // A long job is alive as long as it beats; this only bounds a job that beats forever.
        expireInSeconds: 24 * 3_600,
      });
  }

  /**
   * Queues a job inside the caller's transaction; while tracing is on, the job keeps the trace
   * context of the request that queued it (`traceparent` in its data), which its run continues.
   */
  async enqueue(m: EntityManager, queue: QueueSpec, data: object): Promise<void> {
    const trace = traceContextOf();
    await this.boss.send(queue.name, trace ? { ...data, ...trace } : data, {
      db: { executeSql: async (text, values) => ({ rows: await m.query(text, values as unknown[]) }) },
    });
  }

  /** Runs `handle` for each job taken from `queue`, `concurrency` at a time in this process. */
  async work<T extends object>(
    queue: QueueSpec,
    concurrency: number,
    handle: (job: Job<T>, lastTry: boolean) => Promise<void>,
  ): Promise<void> {
    await this.boss.work<T>(
      queue.name,
      { batchSize: 1, localConcurrency: concurrency, pollingIntervalSeconds: 2 },
      async ([job]) => {
        const lastTry = job.retryCount >= queue.attempts - 1;
        if (!tracingEnabled()) return handle(job, lastTry);
        // Each try is a consumer span in the trace of the request that queued the job.
        const stored = job.data as { traceparent?: unknown; tracestate?: unknown };
        return inSpan(
          `run ${queue.name}`,
          {
            kind: SpanKind.CONSUMER,
            parent: contextFromTraceparent(stored.traceparent, stored.tracestate),
            attributes: { 'pim.job.queue': queue.name, 'pim.job.id': job.id, 'pim.job.retry': job.retryCount },
          },
          () => handle(job, lastTry),
        );
      },
    );
  }

  /** Stops taking jobs, lets running ones end (up to `graceMs`), and closes the queue's connections. */
  async stop(graceMs: number): Promise<void> {
    await this.boss.stop({ graceful: true, timeout: graceMs, close: true });
  }

  /** The queues' workers as a loop of the app: jobs taken while it runs, and let finish when it stops. */
  loop(workers: QueueWorkers<never>[], graceMs: number): BackgroundLoop {
    return {
      start: async () => {
        await this.start(workers.map((w) => w.queue));
        for (const w of workers)
          if (w.work)
            await this.work<object>(w.queue, w.concurrency, (job, lastTry) => w.run(job.data as never, lastTry));
      },
      stop: () => this.stop(graceMs),
    };
  }
}
