import type { MigrationInterface, QueryRunner } from 'typeorm';
import { OUTBOX_ENVELOPE_AS_JSON_DOWN_SQL, OUTBOX_ENVELOPE_AS_JSON_UP_SQL } from '@pim/events';

/** The outbox keeps envelopes as json (lz4-compressed where available): see @pim/events. */
export class OutboxEnvelopeJson1765238400002 implements MigrationInterface {
  name = 'OutboxEnvelopeJson1765238400002';

  async up(q: QueryRunner): Promise<void> {
    for (const sql of OUTBOX_ENVELOPE_AS_JSON_UP_SQL) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sql of OUTBOX_ENVELOPE_AS_JSON_DOWN_SQL) await q.query(sql);
  }
}
