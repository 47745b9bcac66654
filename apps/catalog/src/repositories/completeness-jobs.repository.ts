import type { EntityManager } from 'typeorm';
import { newId } from '@pim/ids';

// Every query over `completeness_jobs`: recording a recompute, and a worker's lease on one.

/** The products a recompute concerns (see CompletenessJobEntity); empty lists name none. */
export interface CompletenessScope {
  group_ids: string[];
  category_ids: string[];
  family_ids: string[];
  attribute_ids: string[];
}

/** A job as the worker holding it sees it. */
export interface HeldJob extends CompletenessScope {
  id: string;
  cause: string;
  after_id: string | null;
  lease_token: string;
  claimed_at: Date;
}

/** Records a recompute inside the caller's transaction and NOTIFYs `channel` (delivered at commit). */
export async function insertCompletenessJob(
  m: EntityManager,
  cause: string,
  scope: CompletenessScope,
  channel: string,
): Promise<void> {
  await m.query(
    `INSERT INTO "completeness_jobs" ("id", "cause", "group_ids", "category_ids", "family_ids", "attribute_ids", "created_at")
     VALUES ($1, $2, $3::text[], $4::text[], $5::text[], $6::text[], now())`,
    [newId(), cause, scope.group_ids, scope.category_ids, scope.family_ids, scope.attribute_ids],
  );
  await m.query(`SELECT pg_notify($1, '')`, [channel]);
}

/** Takes the oldest job nobody holds (or whose holder's lease ran out) under a new lease of `leaseMs`. */
export async function claimCompletenessJob(m: EntityManager, leaseMs: number): Promise<HeldJob | null> {
  const rows: HeldJob[] = await m.query(
    `WITH c AS (
       SELECT "id" FROM "completeness_jobs" WHERE "lease_until" IS NULL OR "lease_until" < now()
        ORDER BY "created_at", "id" LIMIT 1 FOR UPDATE SKIP LOCKED),
     u AS (
       UPDATE "completeness_jobs" j SET "lease_token" = $1, "lease_until" = now() + make_interval(secs => $2::float8 / 1000), "attempts" = j."attempts" + 1
         FROM c WHERE j."id" = c."id"
       RETURNING j."id", j."cause", j."group_ids", j."category_ids", j."family_ids", j."attribute_ids", j."after_id", j."lease_token", clock_timestamp() AS "claimed_at")
     SELECT * FROM u`,
    [newId(), leaseMs],
  );
  return rows[0] ?? null;
}

/**
 * Records how far a held job got (`after`, when given) and the products it changed, and renews its
 * lease; false when the lease is no longer the holder's (another worker took the job over).
 */
export async function renewCompletenessJob(
  m: EntityManager,
  job: HeldJob,
  after: string | null,
  updated: number,
  leaseMs: number,
): Promise<boolean> {
  const rows: unknown[] = await m.query(
    `WITH u AS (
       UPDATE "completeness_jobs" SET "after_id" = COALESCE($3, "after_id"), "products_updated" = "products_updated" + $4,
              "lease_until" = now() + make_interval(secs => $5::float8 / 1000)
        WHERE "id" = $1 AND "lease_token" = $2 RETURNING 1)
     SELECT * FROM u`,
    [job.id, job.lease_token, after, updated, leaseMs],
  );
  return rows.length > 0;
}

/** Deletes a finished job; false when the lease is no longer the holder's. */
export async function finishCompletenessJob(m: EntityManager, job: HeldJob): Promise<boolean> {
  const [{ n }]: { n: number }[] = await m.query(
    `WITH d AS (DELETE FROM "completeness_jobs" WHERE "id" = $1 AND "lease_token" = $2 RETURNING 1) SELECT count(*)::int AS n FROM d`,
    [job.id, job.lease_token],
  );
  return n > 0;
}

/** Hands a held job back, its progress kept, for the next worker to take at once. */
export async function releaseCompletenessJob(m: EntityManager, job: HeldJob): Promise<void> {
  await m.query(
    `UPDATE "completeness_jobs" SET "lease_token" = NULL, "lease_until" = NULL WHERE "id" = $1 AND "lease_token" = $2`,
    [job.id, job.lease_token],
  );
}

/** Notes a held job's error and hands it back to be taken again after `waitMs`. */
export async function failCompletenessJob(
  m: EntityManager,
  job: HeldJob,
  error: string,
  waitMs: number,
): Promise<void> {
  await m.query(
    `UPDATE "completeness_jobs" SET "last_error" = $3, "lease_token" = NULL, "lease_until" = now() + make_interval(secs => $4::float8 / 1000)
      WHERE "id" = $1 AND "lease_token" = $2`,
    [job.id, job.lease_token, error, waitMs],
  );
}
