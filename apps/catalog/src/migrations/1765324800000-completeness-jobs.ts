import type { MigrationInterface, QueryRunner } from 'typeorm';

// The statements are written out here, not derived from the entities at run time, so this
// migration keeps meaning what it meant when it first ran.

const COLUMNS =
  `"id" character(24) NOT NULL, "cause" text NOT NULL, ` +
  `"group_ids" text array NOT NULL DEFAULT '{}', "category_ids" text array NOT NULL DEFAULT '{}', ` +
  `"family_ids" text array NOT NULL DEFAULT '{}', "attribute_ids" text array NOT NULL DEFAULT '{}', ` +
  `"created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "after_id" character(24), "lease_token" character(24), ` +
  `"lease_until" TIMESTAMP WITH TIME ZONE, "attempts" integer NOT NULL DEFAULT '0', ` +
  `"products_updated" integer NOT NULL DEFAULT '0', "last_error" text`;

/**
 * completeness_jobs: recomputes of stored completeness that a change of required attributes
 * left to do, taken by the catalog's background worker (see completeness.worker.ts).
 */
export class CompletenessJobs1765324800000 implements MigrationInterface {
  name = 'CompletenessJobs1765324800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "completeness_jobs" (${COLUMNS}, CONSTRAINT "PK_completeness_jobs" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "IDX_completeness_jobs_created_at" ON "completeness_jobs" ("created_at", "id")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "completeness_jobs"`);
  }
}
