import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An order's `workflow` is written by the caller too now (by `_id` or `code`, as the order shows
 * it), and always holds the copy taken on create: every order has one, so the column says so.
 */
export class OrderWorkflowRequired1796100000000 implements MigrationInterface {
  name = 'OrderWorkflowRequired1796100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "orders" ALTER COLUMN "workflow" SET NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "orders" ALTER COLUMN "workflow" DROP NOT NULL`);
  }
}
