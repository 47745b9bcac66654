// Preloaded (`node -r`) into every process the launcher starts. The launcher puts each child in
// its own process group so a terminal's Ctrl-C reaches only the launcher, which then stops apps
// before NATS and Postgres; the price is that a child outlives a launcher killed with SIGKILL.
// This closes that gap: once the parent is gone (the child was re-parented), the child gets
// SIGTERM, and SIGKILL if it is still there after the grace period.
// The watch runs in a worker thread because an orphan's main thread can hang for good: pino's
// exit flush retries writes to the dead launcher's pipe (EPIPE) in a synchronous loop.
'use strict';

const { Worker, isMainThread } = require('node:worker_threads');

const GRACE_MS = 15_000;

if (isMainThread && process.ppid > 1) {
  const watcher = new Worker(
    `
    const { workerData } = require('node:worker_threads');
    const timer = setInterval(() => {
      if (process.ppid === workerData.parent) return;
      clearInterval(timer);
      process.kill(workerData.pid, 'SIGTERM');
      setTimeout(() => process.kill(workerData.pid, 'SIGKILL'), workerData.graceMs);
    }, 500);
    `,
    {
      eval: true,
      workerData: { parent: process.ppid, pid: process.pid, graceMs: GRACE_MS },
      stdout: false,
      stderr: false,
    },
  );
  // Never the reason a process stays alive (a migration script must still exit on its own).
  watcher.unref();
}
