import { setTimeout as sleep } from 'node:timers/promises';
import type { ExitStatus } from './managed-process';
import type { ProbeResult } from './health';

/** A start-up failure with a message meant for the person who ran `npm start` (no stack needed). */
export class StartError extends Error {
  override readonly name = 'StartError';
}

/** Start-up was interrupted because the platform is being stopped. */
export class StartAborted extends Error {
  override readonly name = 'StartAborted';
  constructor() {
    super('start-up interrupted: the platform is stopping');
  }
}

/** What to poll, for how long, and what ends the wait early. */
export interface WaitOptions {
  /** Named in the time-out message. */
  what: string;
  timeoutMs: number;
  signal: AbortSignal;
  check: () => Promise<ProbeResult>;
  /** The process whose exit ends the wait with `exitMessage`. */
  exited?: Promise<ExitStatus>;
  exitMessage?: (status: ExitStatus) => string;
  intervalMs?: number;
}

/** Polls `check` until it passes; throws StartError on exit or time-out, StartAborted on stop. */
export async function waitUntil(opts: WaitOptions): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  let exit: ExitStatus | undefined;
  void opts.exited?.then((s) => {
    exit = s;
  });
  let last = 'no answer yet';
  for (;;) {
    if (opts.signal.aborted) throw new StartAborted();
    if (exit) throw new StartError(opts.exitMessage?.(exit) ?? `${opts.what} exited`);
    const result = await opts.check();
    if (result.ok) return;
    last = result.reason;
    if (Date.now() >= deadline) {
      throw new StartError(
        `${opts.what} did not become ready within ${Math.round(opts.timeoutMs / 1000)} s (last check: ${last})`,
      );
    }
    const pause = sleep(opts.intervalMs ?? 200, undefined, { signal: opts.signal }).catch(() => undefined);
    await (opts.exited ? Promise.race([pause, opts.exited]) : pause);
  }
}

/** Waits for a process to exit; StartAborted if the platform is stopped first, StartError after `timeoutMs`. */
export async function waitForExit(
  exited: Promise<ExitStatus>,
  signal: AbortSignal,
  timeoutMs: number,
  what: string,
): Promise<ExitStatus> {
  if (signal.aborted) throw new StartAborted();
  const local = new AbortController();
  const both = AbortSignal.any([signal, local.signal]);
  const timedOut = sleep(timeoutMs, undefined, { signal: both }).then(
    () => {
      throw new StartError(`${what} did not finish within ${Math.round(timeoutMs / 1000)} s`);
    },
    () => {
      if (signal.aborted) throw new StartAborted();
      return new Promise<never>(() => undefined);
    },
  );
  try {
    return await Promise.race([exited, timedOut]);
  } finally {
    local.abort();
  }
}
