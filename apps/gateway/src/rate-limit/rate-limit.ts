import type { Pool } from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { RateLimitError, UnavailableError } from '@pim/errors';

/** The outcome of counting one request. */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/**
 * Requests per minute per caller, counted in Postgres (table gateway.rate_limits) so every
 * gateway replica shares one count: an atomic upsert per request, a window that starts at the
 * caller's first request. Postgres is already a dependency of every deployment; a separate Redis
 * would be faster at very high rates but is one more thing to run.
 */
export class RateLimiter {
  private readonly limiter: RateLimiterPostgres;

  constructor(pool: Pool, readonly limit: number, opts: { schema: string; keyPrefix: string; windowSeconds?: number }) {
    this.limiter = new RateLimiterPostgres({
      storeClient: pool,
      storeType: 'pool',
      schemaName: opts.schema,
      tableName: 'rate_limits',
      tableCreated: true,
      keyPrefix: opts.keyPrefix,
      points: limit,
      duration: opts.windowSeconds ?? 60,
    });
  }

  /** Counts a request for `key`; throws RateLimitError (with the state) past the limit. */
  async consume(key: string): Promise<RateLimitState> {
    try {
      const r = await this.limiter.consume(key, 1);
      return this.state(r);
    } catch (err) {
      if (err instanceof RateLimiterRes) {
        const state = this.state(err);
        throw Object.assign(
          new RateLimitError(`More than ${this.limit} requests a minute`, {
            retryAfter: state.resetSeconds,
            solution: `Wait ${state.resetSeconds} s (Retry-After), then retry; spread requests to stay under ${this.limit} a minute`,
          }),
          { rateLimit: state },
        );
      }
      throw new UnavailableError('The rate limiter could not reach its store', { cause: err, retryAfter: 1 });
    }
  }

  private state(r: RateLimiterRes): RateLimitState {
    return { limit: this.limit, remaining: Math.max(0, r.remainingPoints), resetSeconds: Math.max(1, Math.ceil(r.msBeforeNext / 1000)) };
  }
}
