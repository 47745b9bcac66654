import type { DataSource } from 'typeorm';
import type { BackgroundLoop } from '@pim/app';
import type { Logger } from '@pim/logging';
import type { FileStorage } from '@pim/storage';
import { takeExpiredFiles } from '../repositories/exports.repository';

/** Files removed per transaction. */
const SWEEP_BATCH = 100;

/**
 * Removes export files past their retention (and those of deleted exports) every `everyMs`, on
 * any replica: each file is taken by one replica (`FOR UPDATE SKIP LOCKED`) and marked removed
 * in the transaction that removes it. A download after expiry is a 410 whether or not the sweep
 * has run.
 */
export function exportSweeper(ds: DataSource, storage: FileStorage, everyMs: number, logger: Logger): BackgroundLoop {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const sweep = async () => {
    for (;;) {
      const removed = await ds.transaction(async (m) => {
        const due = await takeExpiredFiles(m, SWEEP_BATCH);
        for (const file of due) await storage.remove(file.file_key);
        return due.length;
      });
      if (removed > 0) logger.info({ removed }, 'removed expired export files');
      if (removed < SWEEP_BATCH || stopped) return;
    }
  };
  const tick = () => {
    running = sweep()
      .catch((err: unknown) => logger.warn({ err }, 'the export file sweep failed; it runs again later'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, everyMs);
      });
  };
  return {
    start() {
      timer = setTimeout(tick, Math.min(everyMs, 1_000));
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
