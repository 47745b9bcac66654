/** A fetch as openapi-fetch calls it: a Request, and the client's RequestInit extension if any. */
export type Fetch = (input: Request, init?: RequestInit) => Promise<Response>;

/** A fetch that retries transient failures and counts what it sent. */
export type RetryingFetch = Fetch & {
  /** Requests sent so far, every attempt counted. */
  readonly requests: number;
};

/** How transient failures are retried. */
export interface RetryOptions {
  /** Requests sent at most for one call, the first included (default 4; 1 sends each request once). */
  attempts?: number;
  /** The back-off after the first failure when the API asks for no wait, doubled at each retry (default 500 ms). */
  baseDelayMs?: number;
  /** The longest wait between two attempts, whatever the API asks for (default 60 s: the API's rate window). */
  maxDelayMs?: number;
  /** Waits `ms` milliseconds (tests pass a fake). */
  sleep?: (ms: number) => Promise<void>;
  /** Called before each wait for a retry (to log it); returning false gives up: the answer is returned, the error thrown. */
  onRetry?: (retry: RetryEvent) => boolean | void;
}

/** A failed attempt about to be retried. */
export interface RetryEvent {
  request: Request;
  /** The attempt that failed, from 1. */
  attempt: number;
  /** The transient answer (429, 500, 502, 503, 504), when one came. */
  response?: Response;
  /** What fetch threw, when nothing answered. */
  error?: unknown;
  /** The wait before the next attempt. */
  delayMs: number;
}

/** The answers worth sending the same request again for. */
export const TRANSIENT_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Wraps a fetch so that transient failures are sent again, safely, up to `attempts` requests in all.
 *
 * What the API guarantees, and what this relies on:
 * - A POST with the same `Idempotency-Key` and the same body within 24 h gets the first answer
 *   replayed (`Idempotent-Replayed: true`), also after a 5xx or a dropped connection whose request
 *   had been carried out; another body with the same key is a 409. So a POST without a key gets a
 *   fresh one (a random UUID) here, and every retry is the same request: created once, whatever
 *   was lost on the way. A caller's own key is kept.
 * - A 429 and a 503 carry `Retry-After` (seconds); a 429 also `RateLimit-Reset`.
 *
 * Retried: a fetch that rejects (no answer), and 429, 500, 502, 503, 504 — waiting what
 * `Retry-After` asks (seconds or an HTTP date), else on a 429 `RateLimit-Reset`, else an
 * exponential back-off with jitter; every wait capped at `maxDelayMs`. Never retried: any other
 * status, an aborted request. Exception: a multipart POST (an upload, `POST /api/v1/imports`) is
 * not replayed by its key, so it is retried on a 429 only.
 *
 * PUT, PATCH and DELETE are retried as sent: a retry of one that had been carried out may answer
 * 412 (its `If-Match` no longer holds) or 404 (already deleted). When attempts run out the last
 * answer is returned, or the last error thrown. Each attempt sends a clone of the request, so
 * bodies are sent again intact.
 */
export function retryingFetch(
  fetch: Fetch = (input, init) => globalThis.fetch(input, init),
  options: RetryOptions = {},
): RetryingFetch {
  const attempts = Math.max(1, Math.floor(options.attempts ?? 4));
  const baseDelayMs = options.baseDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  const sleep = options.sleep ?? defaultSleep;
  let requests = 0;

  const send: Fetch = async (input, init) => {
    const request = attempts > 1 ? withIdempotencyKey(input) : input;
    const replayable = !(request.method === 'POST' && isMultipart(request));
    for (let attempt = 1; ; attempt++) {
      request.signal.throwIfAborted();
      const last = attempt >= attempts;
      let response: Response;
      try {
        requests++;
        // The last attempt sends the original: nothing is left to clone for.
        response = await fetch(last ? request : request.clone(), init);
      } catch (error) {
        if (last || !replayable || request.signal.aborted) throw error;
        const delayMs = backoff(attempt, baseDelayMs, maxDelayMs);
        if (options.onRetry?.({ request, attempt, error, delayMs }) === false) throw error;
        await sleep(delayMs);
        continue;
      }
      if (last || !TRANSIENT_STATUSES.has(response.status) || (!replayable && response.status !== 429)) return response;
      const delayMs = Math.min(maxDelayMs, waitAsked(response) ?? backoff(attempt, baseDelayMs, maxDelayMs));
      if (options.onRetry?.({ request, attempt, response, delayMs }) === false) return response;
      // Let the connection go back to the pool instead of holding an unread body.
      await response.body?.cancel().catch(() => undefined);
      await sleep(delayMs);
    }
  };
  return Object.defineProperty(send, 'requests', { get: () => requests, enumerable: true }) as RetryingFetch;
}

/** The request with an `Idempotency-Key` if it is a POST without one. */
function withIdempotencyKey(request: Request): Request {
  if (request.method !== 'POST' || request.headers.has('idempotency-key')) return request;
  const headers = new Headers(request.headers);
  headers.set('Idempotency-Key', crypto.randomUUID());
  return new Request(request, { headers });
}

function isMultipart(request: Request): boolean {
  return (request.headers.get('content-type') ?? '').toLowerCase().startsWith('multipart/');
}

/** The wait the answer asks for in ms: `Retry-After` (seconds or an HTTP date), else a 429's `RateLimit-Reset`. */
export function waitAsked(response: Response, now = Date.now()): number | undefined {
  const after = response.headers.get('retry-after')?.trim();
  if (after) {
    if (/^\d+$/.test(after)) return Number(after) * 1000;
    const at = Date.parse(after);
    if (!Number.isNaN(at)) return Math.max(0, at - now);
  }
  // The rate window's end means nothing for a 5xx (every answer carries it).
  const reset = response.status === 429 ? response.headers.get('ratelimit-reset')?.trim() : undefined;
  if (reset && /^\d+$/.test(reset)) return Number(reset) * 1000;
  return undefined;
}

/** The doubling back-off after `attempt` failed, with jitter (half of it random) so callers spread out. */
function backoff(attempt: number, baseDelayMs: number, maxDelayMs: number): number {
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}
