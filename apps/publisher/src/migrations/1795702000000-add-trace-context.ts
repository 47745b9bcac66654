import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The trace context a publication's sends and a batch's runs continue (docs/observability.md); NULL: none. */
export class AddTraceContext1795702000000 implements MigrationInterface {
  name = 'AddTraceContext1795702000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "publications" ADD "trace_context" jsonb`);
    await q.query(`ALTER TABLE "publication_batches" ADD "trace_context" jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "publication_batches" DROP COLUMN "trace_context"`);
    await q.query(`ALTER TABLE "publications" DROP COLUMN "trace_context"`);
  }
}
