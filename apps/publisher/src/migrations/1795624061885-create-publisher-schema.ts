import type { MigrationInterface, QueryRunner } from 'typeorm';
import {
  OUTBOX_DOWN_SQL,
  OUTBOX_ENVELOPE_AS_JSON_DOWN_SQL,
  OUTBOX_ENVELOPE_AS_JSON_UP_SQL,
  OUTBOX_UP_SQL,
} from '@pim/events';

/** The publisher schema's first tables: the outbox its events wait in, and unaccent for `_search`. */
export class CreatePublisherSchema1795624061885 implements MigrationInterface {
  name = 'CreatePublisherSchema1795624061885';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS unaccent WITH SCHEMA public`);
    for (const sql of [...OUTBOX_UP_SQL, ...OUTBOX_ENVELOPE_AS_JSON_UP_SQL]) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sql of [...OUTBOX_ENVELOPE_AS_JSON_DOWN_SQL, ...OUTBOX_DOWN_SQL]) await q.query(sql);
  }
}
