import type { Logger } from '@pim/logging';

/**
 * Runs `fn` until it succeeds or `forMs` have passed (then its last error is thrown), waiting
 * 100 ms, 200 ms… up to 2 s between tries: for dependencies that may still be starting next to us.
 */
export async function withRetries<T>(logger: Logger, what: string, fn: () => Promise<T>, forMs = 60_000): Promise<T> {
  const until = Date.now() + forMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > until) throw err;
      logger.warn({ err, attempt }, `${what} failed; retrying`);
      await new Promise((r) => setTimeout(r, Math.min(2_000, 100 * 2 ** attempt)));
    }
  }
}
