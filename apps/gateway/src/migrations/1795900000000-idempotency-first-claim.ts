import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When a request (key and body) was first claimed, kept when its claim is released after a 5xx
 * or taken over after its gateway died: the calls it makes carry tokens derived from it, so the
 * apps answer a retry of the same request from its first run, and a key used again after its
 * retention starts afresh.
 */
export class IdempotencyFirstClaim1795900000000 implements MigrationInterface {
  name = 'IdempotencyFirstClaim1795900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE "idempotency_records" ADD "first_claimed_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now()`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "idempotency_records" DROP COLUMN "first_claimed_at"`);
  }
}
