import type { MigrationInterface, QueryRunner } from 'typeorm';
import { OUTBOX_DEAD_LETTERS_DOWN_SQL, OUTBOX_DEAD_LETTERS_UP_SQL } from '@pim/events';

/** Dead letters: events set aside after every try failed, and the outbox's record order (see @pim/events). */
export class OutboxDeadLetters1795800000000 implements MigrationInterface {
  name = 'OutboxDeadLetters1795800000000';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of OUTBOX_DEAD_LETTERS_UP_SQL) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sql of OUTBOX_DEAD_LETTERS_DOWN_SQL) await q.query(sql);
  }
}
