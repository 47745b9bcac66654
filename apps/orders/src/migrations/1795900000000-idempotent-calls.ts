import type { MigrationInterface, QueryRunner } from 'typeorm';
import { IDEMPOTENT_CALLS_DOWN_SQL, IDEMPOTENT_CALLS_UP_SQL } from '@pim/db';

/** The ledger of idempotent calls: a retried write is answered from its first run (see @pim/db). */
export class IdempotentCalls1795900000000 implements MigrationInterface {
  name = 'IdempotentCalls1795900000000';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of IDEMPOTENT_CALLS_UP_SQL) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sql of IDEMPOTENT_CALLS_DOWN_SQL) await q.query(sql);
  }
}
