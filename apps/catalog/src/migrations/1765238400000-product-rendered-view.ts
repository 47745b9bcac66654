import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * products.rendered: the product's API view, serialized when it is written, so GET by id reads
 * one text value. Existing rows stay NULL and are rendered from their columns when read.
 */
export class ProductRenderedView1765238400000 implements MigrationInterface {
  name = 'ProductRenderedView1765238400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "products" ADD COLUMN "rendered" text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "products" DROP COLUMN "rendered"`);
  }
}
