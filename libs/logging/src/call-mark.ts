import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * One run of a gRPC call that carries an idempotency token (a POST with an Idempotency-Key): what
 * its write transactions record beside their writes, so that a retry of the same call after a lost
 * answer is answered from the first run instead of writing again (@pim/rpc `idempotentService`,
 * @pim/db `CallCommitGuard`).
 */
export interface CallMark {
  /** The call's token: the same on every retry of the same call. */
  readonly token: string;
  /** This run of the call (a retry is another run). */
  readonly attempt: string;
  /** Set once a transaction of this run committed with the token recorded. */
  wrote: boolean;
  /**
   * Set once the call is answered: work it set going that outlives it (and so still sees its mark)
   * is not the call's, and records nothing.
   */
  answered: boolean;
}

const marks = new AsyncLocalStorage<CallMark>();

/** Runs fn (a call's handler) with its mark visible to every transaction it commits. */
export function runWithCallMark<T>(mark: CallMark, fn: () => T): T {
  return marks.run(mark, fn);
}

/** The mark of the call being served, if it carries an idempotency token. */
export function currentCallMark(): CallMark | undefined {
  return marks.getStore();
}
