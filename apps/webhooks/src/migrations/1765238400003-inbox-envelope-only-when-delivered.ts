import type { MigrationInterface, QueryRunner } from 'typeorm';

/** inbox.envelope may be NULL: an event no webhook takes is recorded by id alone (see FanoutRecorder). */
export class InboxEnvelopeOnlyWhenDelivered1765238400003 implements MigrationInterface {
  name = 'InboxEnvelopeOnlyWhenDelivered1765238400003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "inbox" ALTER COLUMN "envelope" DROP NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM "inbox" WHERE "envelope" IS NULL`);
    await q.query(`ALTER TABLE "inbox" ALTER COLUMN "envelope" SET NOT NULL`);
  }
}
