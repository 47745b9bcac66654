import type { MigrationInterface, QueryRunner } from 'typeorm';

// The statements are written out here, not derived from the entities at run time, so this
// migration keeps meaning what it meant when it first ran.

const COLUMNS =
  `"_id" character(24) NOT NULL, "search_text" text NOT NULL, "version" integer NOT NULL DEFAULT '1', ` +
  `"created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, "created_by_name" text, ` +
  `"deleted" boolean NOT NULL DEFAULT false, "deleted_at" TIMESTAMP WITH TIME ZONE, "deleted_by" text, ` +
  `"key" text NOT NULL, "type" text NOT NULL, "product_id" character(24) NOT NULL, "items" jsonb NOT NULL DEFAULT '[]'`;

/**
 * Product relations: one live relation per product and type (`key` = `<product_id>:<type>`),
 * listed by product; GIN on `items` for the in-use checks of product and category deletes.
 */
export class CreateProductRelations1764892800000 implements MigrationInterface {
  name = 'CreateProductRelations1764892800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "product_relations" (${COLUMNS}, CONSTRAINT "PK_product_relations" PRIMARY KEY ("_id"))`,
    );
    await q.query(
      `CREATE UNIQUE INDEX "UQ_product_relations_key_live" ON "product_relations" ("key") WHERE deleted = false`,
    );
    await q.query(`CREATE INDEX "IDX_product_relations_created_at" ON "product_relations" ("created_at", "_id")`);
    await q.query(
      `CREATE INDEX "IDX_product_relations_product_live" ON "product_relations" ("product_id") WHERE deleted = false`,
    );
    await q.query(
      `CREATE INDEX "IDX_product_relations_items" ON "product_relations" USING gin ("items") WHERE deleted = false`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "product_relations"`);
  }
}
