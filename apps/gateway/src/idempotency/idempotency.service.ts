import { createHash } from 'node:crypto';
import { apiLinkWriter } from '../openapi/links';
import type { DataSource } from 'typeorm';
import { ConflictError, ValidationError, toPimError } from '@pim/errors';
import { IdempotencyRecord } from './idempotency.entity';

/** A response as stored and replayed. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

const KEY = /^[\x21-\x7e]{1,255}$/;

/** JSON with object keys sorted, so equal bodies hash equally whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The fingerprint of a request: two requests "are the same" when these match. */
export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()} ${path}\n${canonical(body)}`)
    .digest('hex');
}

/**
 * The idempotency token of a request: its caller, key, body and when it was first claimed (so a
 * key used again after its retention is a new request). The calls it makes derive theirs from it.
 */
export function callToken(owner: string, key: string, hash: string, firstClaimedAt: Date): string {
  return createHash('sha256').update(`${owner}\n${key}\n${hash}\n${firstClaimedAt.toISOString()}`).digest('hex');
}

/** How long a claim without a response is its request's: past it, the request is taken to have died with its gateway. */
export const DEFAULT_CLAIM_LEASE_MS = 60_000;

/** How the service keeps and waits for keys. */
export interface IdempotencyOptions {
  /** How long a response is replayed. */
  retentionMs: number;
  /** How long a request waits for another with its key to answer before a 409 "in progress". */
  waitMs: number;
  pollMs?: number;
  /**
   * How long a claimed key may stay unanswered before the same request may run again (default
   * DEFAULT_CLAIM_LEASE_MS; the gateway gives twice its REQUEST_TIMEOUT_MS): longer than any
   * request the gateway carries out, so only a claim whose gateway died (SIGKILL, a lost machine)
   * is taken over.
   */
  claimLeaseMs?: number;
}

/**
 * Idempotency-Key on POST: the first request with a key runs and its response (below 500) is
 * stored for the retention period; the same key and request replays it; the same key with another
 * request is a 409; concurrent requests with one key run once (the others wait for the first). A
 * claim left unanswered past its lease (its gateway died during the request) is taken over by the
 * same request, which runs again: the only way its caller can ever be answered.
 */
export class IdempotencyService {
  constructor(
    private readonly ds: DataSource,
    private readonly opts: IdempotencyOptions = { retentionMs: 24 * 3600_000, waitMs: 30_000 },
  ) {}

  /**
   * Runs exec once per (owner, key); returns its response and whether this one was a replay. exec
   * gets the request's idempotency token, the same on every run of the same request: its calls to
   * the apps carry it, and an app answers a call it already carried out from its first run.
   */
  async run(
    owner: string,
    key: string,
    hash: string,
    exec: (token: string) => Promise<StoredResponse>,
  ): Promise<{ response: StoredResponse; replayed: boolean }> {
    if (!KEY.test(key)) {
      throw new ValidationError('Idempotency-Key must be 1 to 255 visible ASCII characters', {
        title: 'Invalid Idempotency-Key',
        details: [{ field: 'Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' }],
      });
    }
    const deadline = Date.now() + this.opts.waitMs;
    for (;;) {
      // A record past retention is free (a released one too); an unanswered claim of this same
      // request past its lease too. The same request keeps its first claim's time.
      const claimed = (await this.ds.query(
        `INSERT INTO idempotency_records (owner, key, request_hash, created_at, first_claimed_at) VALUES ($1, $2, $3, now(), now())
         ON CONFLICT (owner, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, created_at = now(),
           response_status = NULL, response_headers = NULL, response_body = NULL,
           first_claimed_at = CASE
             WHEN idempotency_records.request_hash = EXCLUDED.request_hash
              AND idempotency_records.first_claimed_at >= now() - make_interval(secs => $4)
             THEN idempotency_records.first_claimed_at ELSE now() END
         WHERE idempotency_records.created_at < now() - make_interval(secs => $4)
            OR (idempotency_records.response_status IS NULL AND idempotency_records.request_hash = EXCLUDED.request_hash
                AND idempotency_records.created_at < now() - make_interval(secs => $5))
         RETURNING first_claimed_at`,
        [owner, key, hash, this.opts.retentionMs / 1000, (this.opts.claimLeaseMs ?? DEFAULT_CLAIM_LEASE_MS) / 1000],
      )) as { first_claimed_at: Date }[];
      if (claimed.length > 0) {
        const token = callToken(owner, key, hash, claimed[0].first_claimed_at);
        return { response: await this.execute(owner, key, () => exec(token)), replayed: false };
      }

      const [row] = (await this.ds.query(
        'SELECT request_hash, response_status, response_headers, response_body FROM idempotency_records WHERE owner = $1 AND key = $2',
        [owner, key],
      )) as IdempotencyRecord[];
      if (!row) continue; // purged meanwhile: claim it now
      if (row.request_hash !== hash) {
        throw new ConflictError('This Idempotency-Key was already used with a different request', {
          title: 'Idempotency-Key reused',
          solution: 'Use a new Idempotency-Key for a different request, or resend exactly the first request',
        });
      }
      if (row.response_status !== null) {
        return {
          response: { status: row.response_status, headers: row.response_headers ?? {}, body: row.response_body },
          replayed: true,
        };
      }
      if (Date.now() > deadline) {
        throw new ConflictError('A request with this Idempotency-Key is still being processed', {
          title: 'Request in progress',
          solution: 'Retry the same request a little later to receive its response',
          retryAfter: 1,
        });
      }
      await new Promise((r) => setTimeout(r, this.opts.pollMs ?? 50));
    }
  }

  /** Deletes records past the retention period (any replica may run it); a released one once its request's first claim is. */
  async purgeExpired(): Promise<void> {
    await this.ds.query(
      `DELETE FROM idempotency_records
       WHERE created_at < now() - make_interval(secs => $1) AND first_claimed_at < now() - make_interval(secs => $1)`,
      [this.opts.retentionMs / 1000],
    );
  }

  private async execute(owner: string, key: string, exec: () => Promise<StoredResponse>): Promise<StoredResponse> {
    let response: StoredResponse;
    try {
      response = await exec();
    } catch (err) {
      // Client errors are the request's answer and are kept; server errors release the key so a retry can run.
      const pim = toPimError(err);
      if (pim.status >= 500) {
        await this.release(owner, key);
        throw err;
      }
      response = { status: pim.status, headers: {}, body: pim.toObject(undefined, apiLinkWriter) };
    }
    if (response.status >= 500) {
      await this.release(owner, key);
      return response;
    }
    try {
      await this.ds.query(
        'UPDATE idempotency_records SET response_status = $3, response_headers = $4, response_body = $5 WHERE owner = $1 AND key = $2',
        [owner, key, response.status, JSON.stringify(response.headers), JSON.stringify(response.body ?? null)],
      );
    } catch (err) {
      // A response that cannot be kept must not leave the key claimed: every retry would wait, then get a 409.
      await this.release(owner, key);
      throw err;
    }
    return response;
  }

  /**
   * Frees a claim whose request failed (a 5xx) for the next request with the key: marked as past
   * its retention rather than deleted, so a retry of the same request keeps its first claim's time
   * (and the tokens its calls carry).
   */
  private async release(owner: string, key: string): Promise<void> {
    await this.ds
      .query(
        `UPDATE idempotency_records SET created_at = '-infinity' WHERE owner = $1 AND key = $2 AND response_status IS NULL`,
        [owner, key],
      )
      .catch(() => undefined);
  }
}
