import { randomUUID } from 'node:crypto';
import { Pool, type PoolClient, type QueryResult } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';
import { quoteIdent } from '@pim/db';
import { applyListQuery, type ListQuery } from '@pim/query';
import { deliveryListDecl } from '@pim/resources';
import { WebhookEntity } from '../webhook/webhook.entity';
import { DeliveryAttemptEntity, DeliveryEntity } from './delivery.entity';
import type { EventEnvelope } from '@pim/events';
import { newId } from '@pim/ids';
import type { Keyring } from '@pim/secrets';
import type { AttemptOutcome, DeliveryStatus } from '@pim/resources';
import type { KeyValuePair } from '../webhook/webhook.entity';
import type { AttemptResult, ClaimedDelivery } from './delivery.sender';

/** The Postgres NOTIFY channel that wakes delivery workers (new, redelivered or recovered deliveries). */
export const DELIVERIES_CHANNEL = 'pim_webhooks_deliveries';

// Every query over `deliveries`, `delivery_attempts` and `inbox`, and the webhooks' reads the
// delivery pipeline joins with: the queue the workers drain (its own pool, prepared statements)
// and the functions the fan-out and the delivery log run in their callers' transactions.

// Claims from every replica serialize on this lock, so per-webhook in-flight counts are exact.
const CLAIM_LOCK = 'pim-webhooks:claim';

// Session settings of the queue's own connections:
// - synchronous_commit off: claims and outcomes commit without waiting for the WAL flush. A Postgres
//   crash can forget the last fraction of a second of them, which only means some deliveries are
//   sent again (same webhook-id), never that one is lost. The fan-out's inbox, which precedes the
//   JetStream ack, is written on the app's other connections with the default synchronous commit.
// - enable_bitmapscan off: plain index scans mark the entries of superseded row versions dead as
//   they pass them (bitmap scans never do), so the hot, churning indexes stay cheap between vacuums.
// - enable_seqscan off: the claim and outcome statements are prepared once per connection and run
//   with a generic plan, planned when the queue may have been nearly empty; every one of them reads
//   by index, and must keep doing so when the queue has grown (a scan of the whole queue per burst
//   made a drain several times slower). The purge, which does scan, turns it back on for itself.
const SESSION_SETTINGS = '-c synchronous_commit=off -c enable_bitmapscan=off -c enable_seqscan=off';

/** Error text of an attempt whose worker stopped before recording a result. */
export const INTERRUPTED_ERROR =
  'the worker holding this attempt stopped before recording its result (its lease ran out)';

interface ClaimRow {
  _id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  attempts: number;
  retry_base: number;
  request_id: string | null;
  occurred_ms: number;
  envelope: EventEnvelope;
  url: string;
  headers: KeyValuePair[];
  body: KeyValuePair[];
  secret: string;
  /** Only while the rotation overlap lasts. */
  previous_secret: string | null;
}

// Values inlined into the claim's SQL are only these shapes (never data from outside).
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ID = /^[0-9a-f]{24}$/;

/**
 * The claim (prepared as pim_wh_claim): which deliveries (the oldest due ones of each enabled
 * webhook, up to its free slots), leased by primary key with the conditions checked again (a row
 * that changed meanwhile is skipped), the lost attempt of any whose lease had run out logged as
 * interrupted, and each claimed one returned with its event and webhook.
 * $1 most to claim, $2 per-webhook limit, $3 lease (ms), $4 lease token, $5 ids for lost attempts.
 */
const CLAIM_SQL = `WITH cap AS (
  SELECT w."_id" AS webhook_id,
         $2::int - (SELECT count(*)::int FROM deliveries x
                     WHERE x.webhook_id = w."_id" AND x.lease_token IS NOT NULL AND x.lease_expires_at > now()) AS free
    FROM webhooks w
   WHERE w.enabled AND NOT w.deleted AND w.url IS NOT NULL
), picked AS MATERIALIZED (
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
  LIMIT $1
), claimed AS (
  UPDATE deliveries d
     SET lease_token = $4::uuid, lease_expires_at = now() + make_interval(secs => $3::double precision / 1000),
         attempts = d.attempts + 1, updated_at = now()
   WHERE d."_id" = ANY (ARRAY(SELECT id FROM picked))
     -- Checked again as one opaque test: as plain conditions they lure the planner into
     -- scanning the whole due index when its statistics are stale, instead of the primary key.
     AND (d.status = 'pending' AND d.next_attempt_at <= now() AND (d.lease_token IS NULL OR d.lease_expires_at <= now())) IS TRUE
  RETURNING d."_id", d.webhook_id, d.event_id, d.event_type, d.attempts, d.retry_base, d.request_id, d.event_occurred_at
), full_rows AS MATERIALIZED (
  SELECT c.*, p.old_token, p.old_lease_expires_at, i.envelope, w.url, w.headers, w.body, w.secret, w.previous_secret, w.previous_secret_expires_at
    FROM claimed c
    JOIN picked p ON p.id = c."_id"
    JOIN inbox i ON i.event_id = c.event_id
    JOIN webhooks w ON w."_id" = c.webhook_id
), interrupted AS (
  INSERT INTO delivery_attempts ("_id", delivery_id, number, started_at, outcome, error, url)
  SELECT ($5::text[])[k.n], k."_id", k.attempts - 1, coalesce(k.old_lease_expires_at, now()), 'interrupted', ${quoteLiteral(INTERRUPTED_ERROR)}, k.url
    FROM (SELECT f."_id", f.attempts, f.old_lease_expires_at, f.url, row_number() OVER () AS n FROM full_rows f WHERE f.old_token IS NOT NULL) k
)
-- Only what the worker needs, in forms cheap to parse: the occurrence as epoch ms, the previous
-- secret only while it still signs.
SELECT f."_id", f.webhook_id, f.event_id, f.event_type, f.attempts, f.retry_base, f.request_id,
       extract(epoch FROM f.event_occurred_at)::float8 * 1000 AS occurred_ms, f.envelope, f.url, f.headers, f.body, f.secret,
       CASE WHEN f.previous_secret_expires_at > now() THEN f.previous_secret END AS previous_secret
  FROM full_rows f`;

/** The call of the prepared claim; its values are checked to be of their shape before they are inlined. */
export function claimCall(
  max: number,
  perWebhook: number,
  leaseMs: number,
  token: string,
  attemptIds: string[],
): string {
  if (
    !UUID.test(token) ||
    !attemptIds.every((id) => ID.test(id)) ||
    ![max, perWebhook, leaseMs].every(Number.isSafeInteger)
  ) {
    throw new Error('claim: refusing to inline an unexpected value');
  }
  const ids = attemptIds.length > 0 ? `ARRAY['${attemptIds.join("','")}']` : `ARRAY[]::text[]`;
  return `EXECUTE pim_wh_claim(${max}, ${perWebhook}, ${leaseMs}, '${token}', ${ids})`;
}

// When the earliest future pending delivery of an enabled webhook is due (prepared as pim_wh_next).
const NEXT_DUE_SQL = `SELECT min(n.next_attempt_at) AS next FROM webhooks w
CROSS JOIN LATERAL (
  SELECT d.next_attempt_at FROM deliveries d
   WHERE d.webhook_id = w."_id" AND d.status = 'pending' AND d.next_attempt_at > now()
   ORDER BY d.next_attempt_at LIMIT 1
) n
WHERE w.enabled AND NOT w.deleted`;

/**
 * The outcomes of a burst (prepared as pim_wh_complete, $1 a JSON array): every attempt logged,
 * each delivery's new state written only while its lease token still matches; returns the ids it
 * updated.
 */
const COMPLETE_SQL = `WITH v AS MATERIALIZED (
  SELECT * FROM jsonb_to_recordset($1::jsonb)
    AS v(a char(24), d char(24), t uuid, n int, s timestamptz, ms int, o text, sc int, rb text, e text, u text, st text, na timestamptz)
), logged AS (
  INSERT INTO delivery_attempts ("_id", delivery_id, number, started_at, duration_ms, outcome, status_code, response_body, error, url)
  SELECT v.a, v.d, v.n, v.s, v.ms, v.o, v.sc, v.rb, v.e, v.u FROM v
)
UPDATE deliveries d
   SET status = v.st, next_attempt_at = v.na, lease_token = NULL, lease_expires_at = NULL,
       last_attempt_at = v.s, last_status_code = v.sc, last_response_body = v.rb,
       last_duration_ms = v.ms, last_error = v.e, updated_at = now(),
       completed_at = CASE WHEN v.st <> 'pending' THEN now() ELSE NULL END
  FROM v
 -- The id list first: the planner then reads the burst's rows by primary key (a plain join to the
 -- function's rows, whose count it cannot know, may scan the whole table instead).
 WHERE d."_id" = ANY (ARRAY(SELECT v.d FROM v)) AND d."_id" = v.d AND d.lease_token = v.t
RETURNING d."_id"`;

/** Prepares the queue's statements on a connection (once per connection, in its first cycle). */
const PREPARE = [
  `PREPARE pim_wh_claim(int, int, int, uuid, text[]) AS ${CLAIM_SQL}`,
  `PREPARE pim_wh_next AS ${NEXT_DUE_SQL}`,
  `PREPARE pim_wh_complete(jsonb) AS ${COMPLETE_SQL}`,
];

/**
 * The call of the prepared outcome statement. The burst travels as one JSON literal (escaped as
 * an E'' string, so it reads the same whatever standard_conforming_strings is).
 */
export function completeCall(items: Completion[]): string {
  const rows = new Array<unknown>(items.length);
  for (let k = 0; k < items.length; k++) {
    const c = items[k];
    const r = c.result;
    rows[k] = {
      a: newId(),
      d: c.delivery.id,
      t: c.delivery.token,
      n: c.delivery.attempt,
      s: r.startedAt.toISOString(),
      ms: r.durationMs,
      o: r.outcome,
      sc: r.statusCode ?? null,
      rb: r.responseBody ?? null,
      e: r.error ?? null,
      u: c.url,
      st: c.status,
      na: c.nextAttemptAt?.toISOString() ?? null,
    };
  }
  return `EXECUTE pim_wh_complete(${escapeLiteral(JSON.stringify(rows))})`;
}

/** Any text as an SQL string literal: E'…' with quotes and backslashes doubled (NUL never occurs: callers strip it). */
function escapeLiteral(s: string): string {
  return `E'${s.replace(/['\\]/g, (ch) => ch + ch)}'`;
}

/** A string as an SQL literal (only for the platform's own constant texts). */
function quoteLiteral(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/** What a claim returned. */
export interface ClaimResult {
  deliveries: ClaimedDelivery[];
  /** When the earliest future pending delivery is due (null: none). */
  nextDueAt: Date | null;
}

/** What one cycle (record outcomes, then claim) returned. */
export interface CycleResult {
  /** Deliveries whose lease had been lost before their outcome was recorded. */
  lost: Set<string>;
  /** Null when nothing was claimed for. */
  claim: ClaimResult | null;
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
  // Connections whose statements are prepared.
  private readonly prepared = new WeakSet<PoolClient>();

  /**
   * Opens a small pool of its own on the DataSource's database and schema; close() ends it.
   * `secrets` opens the webhooks' sealed signing secrets of what it claims.
   */
  constructor(
    ds: DataSource,
    private readonly secrets: Keyring,
    poolSize = 4,
  ) {
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
   * One round trip of the worker: records finished attempts (`items`, see complete()) and then
   * claims up to `max` due deliveries (see claim()), as one transaction sent as one multi-statement
   * simple query. Its inlined values are numbers, a fresh UUID, fresh ids and one escaped JSON
   * literal. Each statement takes its own snapshot, so the claim's pick sees every lease released
   * before the advisory lock was granted, this transaction's included.
   */
  async cycle(items: Completion[], max: number, perWebhook: number, leaseMs: number): Promise<CycleResult> {
    const n = Math.max(0, Math.floor(max));
    if (items.length === 0 && n === 0) return { lost: new Set(), claim: null };
    const c = await this.pool.connect();
    // A fresh connection prepares the statements first; they outlive the transaction.
    const statements = this.prepared.has(c) ? [] : [...PREPARE];
    statements.push('BEGIN');
    const completeAt = items.length > 0 ? statements.push(completeCall(items)) - 1 : -1;
    const token = randomUUID();
    let claimAt = -1;
    if (n > 0) {
      statements.push(`SELECT pg_advisory_xact_lock(hashtext('${CLAIM_LOCK}'))`);
      // Ids for the attempts lost by a dead worker, should any of the claimed deliveries have one.
      const attemptIds = Array.from({ length: n }, () => newId());
      claimAt = statements.push(claimCall(n, Math.floor(perWebhook), Math.floor(leaseMs), token, attemptIds)) - 1;
      statements.push('EXECUTE pim_wh_next');
    }
    statements.push('COMMIT');
    let results: QueryResult[];
    try {
      results = (await c.query(statements.join(';\n'))) as unknown as QueryResult[];
    } catch (err) {
      // The connection's state (transaction, prepared statements) is unknown: close it.
      c.release(err as Error);
      throw err;
    }
    this.prepared.add(c);
    c.release();
    let lost = new Set<string>();
    if (completeAt >= 0) {
      const updated = results[completeAt].rows as { _id: string }[];
      if (updated.length !== items.length) {
        const kept = new Set(updated.map((r) => r._id));
        lost = new Set(items.map((i) => i.delivery.id).filter((id) => !kept.has(id)));
      }
    }
    if (claimAt < 0) return { lost, claim: null };
    const next = (results[claimAt + 1].rows[0] as { next: Date | null } | undefined)?.next ?? null;
    return {
      lost,
      claim: {
        deliveries: (results[claimAt].rows as ClaimRow[]).map((r) => toClaimed(r, token, this.secrets)),
        nextDueAt: next ? new Date(next) : null,
      },
    };
  }

  /**
   * Claims up to `max` due deliveries of enabled webhooks, never more than `perWebhook` in flight
   * per webhook across every replica, leasing them for `leaseMs`. A delivery whose lease ran out
   * (its worker died mid-attempt) is claimed again and its lost attempt logged as interrupted.
   */
  async claim(max: number, perWebhook: number, leaseMs: number): Promise<ClaimResult> {
    const r = await this.cycle([], max, perWebhook, leaseMs);
    return r.claim ?? { deliveries: [], nextDueAt: null };
  }

  /**
   * Records finished attempts and the state each leaves its delivery in, in one transaction.
   * Attempts are always logged; a delivery is only updated while its lease token still matches.
   * Returns the ids whose lease had been lost.
   */
  async complete(items: Completion[]): Promise<Set<string>> {
    return (await this.cycle(items, 0, 0, 0)).lost;
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
   * Deletes finished deliveries (with their attempts) older than the retention, then events no
   * delivery refers to any more. Only one replica runs it at a time. Returns rows deleted.
   */
  async purge(retentionDays: number, chunk = 5_000): Promise<number> {
    return this.tx(async (m) => {
      const {
        rows: [{ locked }],
      } = await m.query<{ locked: boolean }>(
        `SELECT pg_try_advisory_xact_lock(hashtext('pim-webhooks:purge')) AS locked`,
      );
      if (!locked) return 0;
      await m.query('SET LOCAL enable_seqscan = on');
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

/**
 * The signing secrets of a claimed delivery in clear (current first, then the previous one while it
 * still signs); a secret that cannot be opened (its operator key no longer listed) leaves none and
 * says why, and the delivery is not sent.
 */
function openSecrets(r: ClaimRow, secrets: Keyring): { secrets: string[]; secretProblem?: string } {
  try {
    const current = secrets.reveal(r.secret);
    return { secrets: r.previous_secret ? [current, secrets.reveal(r.previous_secret)] : [current] };
  } catch (err) {
    return {
      secrets: [],
      secretProblem: `not sent: the webhook's signing secret cannot be opened: ${(err as Error).message}`,
    };
  }
}

function toClaimed(r: ClaimRow, token: string, secrets: Keyring): ClaimedDelivery {
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
    ...openSecrets(r, secrets),
    envelope: r.envelope,
    requestId: r.request_id,
    occurredAt: new Date(r.occurred_ms),
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

/** Wakes the delivery workers of every replica (NOTIFY is delivered at commit). */
export async function wakeDeliveryWorkers(m: EntityManager): Promise<void> {
  await m.query("SELECT pg_notify($1, '')", [DELIVERIES_CHANNEL]);
}

/** A webhook's stored signing secrets, as the re-seal pass reads them. */
export interface StoredSecrets {
  _id: string;
  secret: string;
  previous_secret: string | null;
}

/** The stored signing secrets of the webhooks after `afterId`, by id: every webhook, deleted ones too (their secrets are still at rest). */
export function webhookSecretsPage(m: EntityManager, afterId: string, limit: number): Promise<StoredSecrets[]> {
  return m.query(`SELECT "_id", secret, previous_secret FROM webhooks WHERE "_id" > $1 ORDER BY "_id" LIMIT $2`, [
    afterId,
    limit,
  ]);
}

/**
 * Stores a webhook's re-sealed secrets if it still holds `before` (a rotation meanwhile wins);
 * whether it did. The same secrets, stored otherwise: no new version, no event.
 */
export async function replaceWebhookSecrets(
  m: EntityManager,
  before: StoredSecrets,
  after: StoredSecrets,
): Promise<boolean> {
  const rows: unknown[] = await m.query(
    `WITH u AS (
       UPDATE webhooks SET secret = $2, previous_secret = $3
        WHERE "_id" = $1 AND secret = $4 AND previous_secret IS NOT DISTINCT FROM $5 RETURNING 1)
     SELECT * FROM u`,
    [before._id, after.secret, after.previous_secret, before.secret, before.previous_secret],
  );
  return rows.length > 0;
}

/** A live webhook by id, or null. */
export function liveWebhook(m: EntityManager, id: string): Promise<WebhookEntity | null> {
  return m.findOne(WebhookEntity, { where: { _id: id, deleted: false } });
}

/** The webhooks events of these collections go to (enabled, live, with a URL); or the one named, whatever its state. */
export function webhooksTaking(
  m: EntityManager,
  collections: string[],
  onlyWebhookId?: string,
): Promise<{ _id: string; collection: string }[]> {
  return onlyWebhookId !== undefined
    ? m.query(`SELECT "_id", collection FROM webhooks WHERE "_id" = $1`, [onlyWebhookId])
    : m.query(
        `SELECT "_id", collection FROM webhooks WHERE collection = ANY($1) AND enabled AND NOT deleted AND url IS NOT NULL`,
        [collections],
      );
}

/** An event as the inbox records it (`envelope` null when no webhook takes it). */
export interface InboxRow {
  id: string;
  type: string;
  collection: string;
  source: string;
  occurred_at: string;
  request_id: string | null;
  envelope: unknown;
}

/** An event new to the inbox, as recorded. */
export interface InboxInserted {
  event_id: string;
  collection: string;
  type: string;
  occurred_at: Date;
  request_id: string | null;
}

// jsonb cannot hold U+0000; an event carrying one is recorded without it rather than not at all.
const withoutNul = (_key: string, value: unknown) =>
  typeof value === 'string' ? value.replaceAll('\u0000', '') : value;

/** Records events in the inbox, keyed by event id; returns those that were new (a redelivered one is skipped). */
export function insertInbox(m: EntityManager, events: InboxRow[]): Promise<InboxInserted[]> {
  return m.query(
    `INSERT INTO inbox (event_id, type, collection, source, occurred_at, request_id, envelope, received_at)
     SELECT e.id, e.type, e.collection, e.source, e.occurred_at, e.request_id, e.envelope, now()
       FROM jsonb_to_recordset($1::jsonb) AS e(id char(24), type text, collection text, source text, occurred_at timestamptz, request_id text, envelope jsonb)
     ON CONFLICT (event_id) DO NOTHING
     RETURNING event_id, collection, type, occurred_at, request_id`,
    [JSON.stringify(events, withoutNul)],
  );
}

/** A delivery to create: one event for one webhook. */
export interface NewDelivery {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  request_id: string | null;
  event_occurred_at: Date;
}

/** Creates pending deliveries due now (one per event and webhook: a second is skipped). */
export async function insertDeliveries(m: EntityManager, rows: NewDelivery[]): Promise<void> {
  await m.query(
    `INSERT INTO deliveries ("_id", webhook_id, event_id, event_type, status, attempts, retry_base, next_attempt_at, request_id, event_occurred_at, created_at, updated_at)
     SELECT d.id, d.webhook_id, d.event_id, d.event_type, 'pending', 0, 0, now(), d.request_id, d.event_occurred_at, now(), now()
       FROM jsonb_to_recordset($1::jsonb) AS d(id char(24), webhook_id char(24), event_id char(24), event_type text, request_id text, event_occurred_at timestamptz)
     ON CONFLICT (event_id, webhook_id) DO NOTHING`,
    [JSON.stringify(rows)],
  );
}

/** A page of one webhook's deliveries, and how many there are. */
export function listDeliveries(
  m: EntityManager,
  webhookId: string,
  query: ListQuery,
): Promise<[DeliveryEntity[], number]> {
  const qb = m.createQueryBuilder(DeliveryEntity, 'd').where('d.webhook_id = :webhookId', { webhookId });
  return applyListQuery(qb, deliveryListDecl, query, 'd').getManyAndCount();
}

/** One delivery of a webhook, by id (or by the event it carries); with `lock`, row-locked for update. */
export function findDelivery(
  m: EntityManager,
  where: { webhook_id: string; _id?: string; event_id?: string },
  lock = false,
): Promise<DeliveryEntity | null> {
  return m.findOne(DeliveryEntity, { where, ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
}

/** A delivery's attempts, oldest first. */
export function attemptsOf(m: EntityManager, deliveryId: string): Promise<DeliveryAttemptEntity[]> {
  return m.find(DeliveryAttemptEntity, {
    where: { delivery_id: deliveryId },
    order: { number: 'ASC', started_at: 'ASC' },
  });
}

/** Puts a delivery back in the queue, due now, with a fresh retry schedule and no lease. */
export async function requeueDelivery(m: EntityManager, deliveryId: string): Promise<void> {
  await m.update(
    DeliveryEntity,
    { _id: deliveryId },
    {
      status: 'pending',
      next_attempt_at: () => 'now()',
      retry_base: () => 'attempts',
      lease_token: null,
      lease_expires_at: null,
      completed_at: null,
      updated_at: () => 'now()',
    },
  );
}

/** Puts a webhook's failed deliveries created at or after `since` back in the queue; returns how many. */
export async function requeueFailedSince(m: EntityManager, webhookId: string, since: Date): Promise<number> {
  const result = await m.query(
    `UPDATE deliveries SET status = 'pending', next_attempt_at = now(), retry_base = attempts, completed_at = NULL, updated_at = now()
      WHERE webhook_id = $1 AND status = 'failed' AND created_at >= $2`,
    [webhookId, since.toISOString()],
  );
  return Array.isArray(result) && typeof result[1] === 'number' ? result[1] : 0;
}

/**
 * Cancels the pending deliveries of a webhook being deleted, in its transaction: nothing more
 * goes to it, and an attempt in flight loses its lease and only logs itself.
 */
export async function cancelPendingDeliveries(m: EntityManager, webhookId: string): Promise<void> {
  await m.query(
    `UPDATE deliveries SET status = 'cancelled', next_attempt_at = NULL, lease_token = NULL, lease_expires_at = NULL,
            completed_at = now(), updated_at = now()
      WHERE webhook_id = $1 AND status = 'pending'`,
    [webhookId],
  );
}
