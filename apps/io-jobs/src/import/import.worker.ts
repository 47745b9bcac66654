import type { BackgroundLoop } from '@pim/app';
import type { ImportQueue } from './import.queue';
import type { ImportRunner } from './import.runner';

/** The queue's workers as a loop of the app: jobs taken while it runs, and let finish when it stops. */
export function importWorker(
  queue: ImportQueue,
  runner: ImportRunner,
  opts: { concurrency: number; work: boolean; graceMs: number },
): BackgroundLoop {
  return {
    async start() {
      await queue.start();
      if (opts.work) await queue.work(opts.concurrency, (job, lastTry) => runner.run(job.data.import_id, lastTry));
    },
    stop: () => queue.stop(opts.graceMs),
  };
}
