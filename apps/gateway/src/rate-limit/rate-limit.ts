import type { Pool } from 'pg';
import { LRUCache } from 'lru-cache';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { RateLimitError, UnavailableError } from '@pim/errors';

/** The outcome of counting one request. */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/** What one replica holds of a caller's window: points taken from the shared count, not yet used. */
interface Lease {
  tokens: number;
  /** The shared count's remaining points right after this lease was taken. */
  sharedRemaining: number;
  resetAt: number;
}

/** The most points one replica takes at once: 1% of the limit, at least 1 (exact counting), at most 50. */
export function leaseSize(limit: number): number {
  return Math.max(1, Math.min(50, Math.floor(limit / 100)));
}

/**
 * Requests per minute per caller, counted in Postgres (table gateway.rate_limits) so every
 * gateway replica shares one count: an atomic upsert, a window that starts at the caller's first
 * request. Postgres is already a dependency of every deployment; a separate Redis would be faster
 * at very high rates but is one more thing to run.
 *
 * A replica takes points from the shared count in leases of `leaseSize(limit)` (1% of the limit)
 * and spends them locally, so a busy key costs one upsert per lease instead of one per request.
 * Points are taken before they are spent, so the replicas together never let more than the
 * limit through; the price is that up to lease−1 points a replica holds (or a lease refused
 * for want of a full lease) can go unused in a window. Limits under 200 a minute keep leases of
 * one point: exact counting, as before.
 */
export class RateLimiter {
  private readonly limiter: RateLimiterPostgres;
  private readonly lease: number;
  // At most 100,000 leases, as `max: 100_000` would bound it, without the ~2.7 MB of slots `max`
  // allocates up front (each gateway holds two limiters).
  private readonly leases = new LRUCache<string, Lease>({ maxSize: 100_000, sizeCalculation: () => 1 });
  /** A lease being taken per key: concurrent requests of one key wait for it instead of taking their own. */
  private readonly taking = new Map<string, Promise<void>>();

  constructor(
    pool: Pool,
    readonly limit: number,
    opts: { schema: string; keyPrefix: string; windowSeconds?: number },
  ) {
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
    this.lease = leaseSize(limit);
  }

  /** Counts a request for `key`; throws RateLimitError (with the state) past the limit. */
  async consume(key: string): Promise<RateLimitState> {
    for (;;) {
      const held = this.leases.get(key);
      if (held && held.tokens > 0 && held.resetAt > Date.now()) {
        held.tokens -= 1;
        return {
          limit: this.limit,
          remaining: Math.max(0, held.sharedRemaining + held.tokens),
          resetSeconds: Math.max(1, Math.ceil((held.resetAt - Date.now()) / 1000)),
        };
      }
      const taking = this.taking.get(key);
      if (taking) {
        // Another request of this key is taking a lease; use it (or, if refused, try on our own).
        await taking.catch(() => undefined);
        continue;
      }
      const take = this.take(key);
      this.taking.set(key, take);
      try {
        await take;
      } finally {
        this.taking.delete(key);
      }
    }
  }

  /** Takes a lease of points for `key` from the shared count. */
  private async take(key: string): Promise<void> {
    try {
      const r = await this.limiter.consume(key, this.lease);
      this.leases.set(key, {
        tokens: this.lease,
        sharedRemaining: Math.max(0, r.remainingPoints),
        resetAt: Date.now() + r.msBeforeNext,
      });
    } catch (err) {
      if (err instanceof RateLimiterRes) {
        this.leases.delete(key);
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
    return {
      limit: this.limit,
      remaining: Math.max(0, r.remainingPoints),
      resetSeconds: Math.max(1, Math.ceil(r.msBeforeNext / 1000)),
    };
  }
}
