import { randomUUID } from 'node:crypto';
import { Pool, type PoolClient } from 'pg';
import type { DataSource } from 'typeorm';
import { quoteIdent } from '@pim/db';
import type { EventEnvelope } from '@pim/events';
import { newId } from '@pim/ids';
import type { AttemptOutcome, DeliveryStatus } from '@pim/resources';
import type { KeyValuePair } from '../webhook/webhook.entity';
import type { AttemptResult, ClaimedDelivery } from './delivery.sender';

/** The Postgres NOTIFY channel that wakes delivery workers (new, redelivered or recovered deliveries). */
export const DELIVERIES_CHANNEL = 'pim_webhooks_deliveries';

// Claims from every replica serialize on this lock, so per-webhook in-flight counts are exact.
const CLAIM_LOCK = 'pim-webhooks:claim';

// Session settings of the queue's own connections:
// - synchronous_commit off: claims and outcomes commit without waiting for the WAL flush. A Postgres
//   crash can forget the last fraction of a second of them, which only means some deliveries are
//   sent again (same webhook-id), never that one is lost. The fan-out's inbox, which precedes the
//   JetStream ack, is written on the app's other connections with the default synchronous commit.
// - enable_bitmapscan off: plain index scans mark the entries of superseded row versions dead as
//   they pass them (bitmap scans never do), so the hot, churning indexes stay cheap between vacuums.
const SESSION_SETTINGS = '-c synchronous_commit=off -c enable_bitmapscan=off';

/** Error text of an attempt whose worker stopped before recording a result. */
export const INTERRUPTED_ERROR = 'the worker holding this attempt stopped before recording its result (its lease ran out)';

interface ClaimRow {
  _id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  attempts: number;
  retry_base: number;
  request_id: string | null;
  event_occurred_at: Date;
  old_token: string | null;
  old_lease_expires_at: Date | null;
  envelope: EventEnvelope;
  url: string;
  headers: KeyValuePair[];
  body: KeyValuePair[];
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
}

/** What a claim returned. */
export interface ClaimResult {
  deliveries: ClaimedDelivery[];
  /** When the earliest future pending delivery is due (null: none). */
  nextDueAt: Date | null;
}

/** The state a finished attempt leaves its delivery in. */
export interface Completion {
  delivery: ClaimedDelivery;
  result: AttemptResult;
  url: string;
  status: DeliveryStatus;
  /** Set when status is pending. */
  nextAttemptAt: Date | null;
}

/** SQL of the delivery queue: claim with leases, renew, complete; every write fenced by the lease token. */
export class DeliveryQueue {
  private readonly pool: Pool;

  /** Opens a small pool of its own on the DataSource's database and schema; close() ends it. */
  constructor(ds: DataSource, poolSize = 4) {
    const o = ds.options as unknown as { url?: string; schema?: string; applicationName?: string };
    this.pool = new Pool({
      connectionString: o.url,
      max: poolSize,
      application_name: `${o.applicationName ?? 'pim'}-deliveries`,
      options: `-c search_path=${quoteIdent(o.schema ?? 'public')},public ${SESSION_SETTINGS}`,
    });
    // An idle connection that drops (Postgres restarted) must not take the process down.
    this.pool.on('error', () => undefined);
  }

  /** Ends the pool's connections. */
  async close(): Promise<void> {
    await this.pool.end();
  }

  private async tx<T>(fn: (c: PoolClient) => Promise<T>): Promise<T> {
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      const out = await fn(c);
      await c.query('COMMIT');
      return out;
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      c.release();
    }
  }

  /**
   * Claims up to `max` due deliveries of enabled webhooks, never more than `perWebhook` in flight
   * per webhook across every replica, leasing them for `leaseMs`. A delivery whose lease ran out
   * (its worker died mid-attempt) is claimed again and its lost attempt logged as interrupted.
   */
  async claim(max: number, perWebhook: number, leaseMs: number): Promise<ClaimResult> {
    const token = randomUUID();
    return this.tx(async (m) => {
      await m.query('SELECT pg_advisory_xact_lock(hashtext($1))', [CLAIM_LOCK]);
      // Which deliveries: the oldest due ones of each enabled webhook, up to its free slots.
      const { rows: picked } = await m.query<{ id: string; old_token: string | null; old_lease_expires_at: Date | null }>(
        `WITH cap AS (
           SELECT w."_id" AS webhook_id,
                  $2::int - (SELECT count(*)::int FROM deliveries x
                              WHERE x.webhook_id = w."_id" AND x.lease_token IS NOT NULL AND x.lease_expires_at > now()) AS free
             FROM webhooks w
            WHERE w.enabled AND NOT w.deleted AND w.url IS NOT NULL
         )
         SELECT c.id, c.old_token, c.old_lease_expires_at FROM cap
         CROSS JOIN LATERAL (
           SELECT d."_id" AS id, d.lease_token AS old_token, d.lease_expires_at AS old_lease_expires_at, d.next_attempt_at
             FROM deliveries d
            WHERE d.webhook_id = cap.webhook_id AND d.status = 'pending' AND d.next_attempt_at <= now()
              AND (d.lease_token IS NULL OR d.lease_expires_at <= now())
            ORDER BY d.next_attempt_at, d."_id"
            LIMIT GREATEST(cap.free, 0)
         ) c
         ORDER BY c.next_attempt_at, c.id
         LIMIT $1`,
        [max, perWebhook],
      );
      const previous = new Map(picked.map((p) => [p.id, p]));
      // Lease them by primary key (the conditions again: a row that changed meanwhile is skipped).
      const { rows: result } = picked.length === 0 ? { rows: [] as ClaimRow[] } : await m.query<ClaimRow>(
        `WITH claimed AS (
           UPDATE deliveries d
              SET lease_token = $2::uuid, lease_expires_at = now() + make_interval(secs => $3::double precision / 1000),
                  attempts = d.attempts + 1, updated_at = now()
            WHERE d."_id" = ANY ($1::char(24)[])
              -- Checked again as one opaque test: as plain conditions they lure the planner into
              -- scanning the whole due index when its statistics are stale, instead of the primary key.
              AND (d.status = 'pending' AND d.next_attempt_at <= now() AND (d.lease_token IS NULL OR d.lease_expires_at <= now())) IS TRUE
           RETURNING d."_id", d.webhook_id, d.event_id, d.event_type, d.attempts, d.retry_base, d.request_id, d.event_occurred_at
         )
         SELECT c.*, i.envelope, w.url, w.headers, w.body, w.secret, w.previous_secret, w.previous_secret_expires_at
           FROM claimed c
           JOIN inbox i ON i.event_id = c.event_id
           JOIN webhooks w ON w."_id" = c.webhook_id`,
        [picked.map((p) => p.id), token, leaseMs],
      );
      const claimed = result.map((r) => ({
        ...r,
        old_token: previous.get(r._id)?.old_token ?? null,
        old_lease_expires_at: previous.get(r._id)?.old_lease_expires_at ?? null,
      }));
      const interrupted = claimed.filter((r) => r.old_token !== null);
      if (interrupted.length > 0) {
        await m.query(
          `INSERT INTO delivery_attempts ("_id", delivery_id, number, started_at, outcome, error, url)
           SELECT a.id, a.delivery_id, a.number, a.started_at, 'interrupted', $2, a.url
             FROM jsonb_to_recordset($1::jsonb) AS a(id char(24), delivery_id char(24), number int, started_at timestamptz, url text)`,
          [
            JSON.stringify(
              interrupted.map((r) => ({ id: newId(), delivery_id: r._id, number: r.attempts - 1, started_at: r.old_lease_expires_at ?? new Date(), url: r.url })),
            ),
            INTERRUPTED_ERROR,
          ],
        );
      }
      const {
        rows: [{ next }],
      } = await m.query<{ next: Date | null }>(
        `SELECT min(n.next_attempt_at) AS next FROM webhooks w
         CROSS JOIN LATERAL (
           SELECT d.next_attempt_at FROM deliveries d
            WHERE d.webhook_id = w."_id" AND d.status = 'pending' AND d.next_attempt_at > now()
            ORDER BY d.next_attempt_at LIMIT 1
         ) n
         WHERE w.enabled AND NOT w.deleted`,
      );
      const now = Date.now();
      return {
        deliveries: claimed.map((r) => toClaimed(r, token, now)),
        nextDueAt: next ? new Date(next) : null,
      };
    });
  }

  /** Extends the leases still held; returns the ids whose lease is gone (another worker took them). */
  async renew(held: { id: string; token: string }[], leaseMs: number): Promise<Set<string>> {
    if (held.length === 0) return new Set();
    const { rows } = await this.pool.query<{ _id: string }>(
      `UPDATE deliveries d SET lease_expires_at = now() + make_interval(secs => $3::double precision / 1000)
         FROM unnest($1::char(24)[], $2::uuid[]) AS v(id, token)
        WHERE d."_id" = v.id AND d.lease_token = v.token
       RETURNING d."_id"`,
      [held.map((h) => h.id), held.map((h) => h.token), leaseMs],
    );
    const kept = new Set(rows.map((r) => r._id));
    return new Set(held.filter((h) => !kept.has(h.id)).map((h) => h.id));
  }

  /**
   * Records finished attempts and the state each leaves its delivery in, in one transaction.
   * Attempts are always logged; a delivery is only updated while its lease token still matches.
   * Returns the ids whose lease had been lost.
   */
  async complete(items: Completion[]): Promise<Set<string>> {
    if (items.length === 0) return new Set();
    const attempts = items.map((c) => ({
      id: newId(),
      delivery_id: c.delivery.id,
      number: c.delivery.attempt,
      started_at: c.result.startedAt.toISOString(),
      duration_ms: c.result.durationMs,
      outcome: c.result.outcome,
      status_code: c.result.statusCode ?? null,
      response_body: c.result.responseBody ?? null,
      error: c.result.error ?? null,
      url: c.url,
    }));
    const states = items.map((c) => ({
      id: c.delivery.id,
      token: c.delivery.token,
      status: c.status,
      next_attempt_at: c.nextAttemptAt?.toISOString() ?? null,
      last_attempt_at: c.result.startedAt.toISOString(),
      status_code: c.result.statusCode ?? null,
      response_body: c.result.responseBody ?? null,
      duration_ms: c.result.durationMs,
      error: c.result.error ?? null,
      final: c.status !== 'pending',
    }));
    return this.tx(async (m) => {
      await m.query(
        `INSERT INTO delivery_attempts ("_id", delivery_id, number, started_at, duration_ms, outcome, status_code, response_body, error, url)
         SELECT a.id, a.delivery_id, a.number, a.started_at, a.duration_ms, a.outcome, a.status_code, a.response_body, a.error, a.url
           FROM jsonb_to_recordset($1::jsonb) AS a(id char(24), delivery_id char(24), number int, started_at timestamptz, duration_ms int,
                                                   outcome text, status_code int, response_body text, error text, url text)`,
        [JSON.stringify(attempts)],
      );
      const { rows } = await m.query<{ _id: string }>(
        `UPDATE deliveries d
            SET status = v.status, next_attempt_at = v.next_attempt_at, lease_token = NULL, lease_expires_at = NULL,
                last_attempt_at = v.last_attempt_at, last_status_code = v.status_code, last_response_body = v.response_body,
                last_duration_ms = v.duration_ms, last_error = v.error, updated_at = now(),
                completed_at = CASE WHEN v.final THEN now() ELSE NULL END
           FROM jsonb_to_recordset($1::jsonb) AS v(id char(24), token uuid, status text, next_attempt_at timestamptz, last_attempt_at timestamptz,
                                                   status_code int, response_body text, duration_ms int, error text, final boolean)
          WHERE d."_id" = v.id AND d.lease_token = v.token
         RETURNING d."_id"`,
        [JSON.stringify(states)],
      );
      const kept = new Set(rows.map((r) => r._id));
      return new Set(items.map((c) => c.delivery.id).filter((id) => !kept.has(id)));
    });
  }

  /**
   * Deletes finished deliveries (with their attempts) older than the retention, then events no
   * delivery refers to any more. Only one replica runs it at a time. Returns rows deleted.
   */
  async purge(retentionDays: number, chunk = 5_000): Promise<number> {
    return this.tx(async (m) => {
      const {
        rows: [{ locked }],
      } = await m.query<{ locked: boolean }>(`SELECT pg_try_advisory_xact_lock(hashtext('pim-webhooks:purge')) AS locked`);
      if (!locked) return 0;
      const d = await m.query(
        `WITH gone AS (
           DELETE FROM deliveries WHERE "_id" IN (
             SELECT "_id" FROM deliveries WHERE status <> 'pending' AND completed_at < now() - make_interval(days => $1::int) LIMIT $2)
           RETURNING "_id"
         )
         DELETE FROM delivery_attempts WHERE delivery_id IN (SELECT "_id" FROM gone)`,
        [retentionDays, chunk],
      );
      const e = await m.query(
        `DELETE FROM inbox WHERE event_id IN (
           SELECT i.event_id FROM inbox i WHERE i.received_at < now() - make_interval(days => $1::int)
              AND NOT EXISTS (SELECT 1 FROM deliveries x WHERE x.event_id = i.event_id) LIMIT $2)`,
        [retentionDays, chunk],
      );
      return (d.rowCount ?? 0) + (e.rowCount ?? 0);
    });
  }
}

function toClaimed(r: ClaimRow, token: string, now: number): ClaimedDelivery {
  const secrets = [r.secret];
  if (r.previous_secret && r.previous_secret_expires_at && new Date(r.previous_secret_expires_at).getTime() > now) secrets.push(r.previous_secret);
  return {
    id: r._id,
    token,
    attempt: r.attempts,
    attemptsSinceQueued: r.attempts - r.retry_base,
    webhookId: r.webhook_id,
    eventId: r.event_id,
    eventType: r.event_type,
    url: r.url,
    headers: r.headers,
    body: r.body,
    secrets,
    envelope: r.envelope,
    requestId: r.request_id,
    occurredAt: new Date(r.event_occurred_at),
  };
}

/** The outcome → state rule: what a finished attempt leaves its delivery in. */
export function nextState(
  result: AttemptResult,
  attemptsSinceQueued: number,
  delayFor: (failedAttempts: number) => number | null,
  now = Date.now(),
): { status: DeliveryStatus; nextAttemptAt: Date | null } {
  const outcome: AttemptOutcome = result.outcome;
  if (outcome === 'success') return { status: 'succeeded', nextAttemptAt: null };
  if (outcome === 'gone') return { status: 'failed', nextAttemptAt: null };
  const scheduled = delayFor(attemptsSinceQueued);
  if (scheduled === null) return { status: 'failed', nextAttemptAt: null };
  const wait = outcome === 'rate_limited' && result.retryAfterMs !== undefined ? result.retryAfterMs : scheduled;
  return { status: 'pending', nextAttemptAt: new Date(now + wait) };
}
