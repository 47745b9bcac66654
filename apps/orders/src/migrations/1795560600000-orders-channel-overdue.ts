import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Open orders of a channel by the earliest of their due dates, with their ids and both dates:
 * `overdue=true` with `channel.code` counts its matches from this index alone, without reading
 * the orders (the list's exact total). Postgres reads an expression index alone only when the
 * columns of the expression are in it too, hence INCLUDE.
 */
export class OrdersChannelOverdue1795560600000 implements MigrationInterface {
  name = 'OrdersChannelOverdue1795560600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX "IDX_orders_channel_overdue" ON "orders" ("channel_code", (LEAST("sla_overdue_date", "status_overdue_date")), "_id") ` +
        `INCLUDE ("sla_overdue_date", "status_overdue_date") WHERE deleted = false AND final_status_type IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "IDX_orders_channel_overdue"`);
  }
}
