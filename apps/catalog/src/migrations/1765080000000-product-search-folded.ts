import type { MigrationInterface, QueryRunner } from 'typeorm';

// The statements are written out here, not derived from the entities at run time, so this
// migration keeps meaning what it meant when it first ran.

/** The folded search text, as the entity declares it (TypeORM compares the two strings). */
const FOLDED = 'lower(immutable_unaccent(search_text))';

/**
 * Product search that stays fast at a million products (docs/apps/catalog.md, "Search"):
 *
 * - `search_folded`, a stored generated column holding `lower(immutable_unaccent(search_text))`:
 *   rows are folded once when written, not again each time a search checks them (the SQL wrapper
 *   costs ~2 µs a row, ten times a LIKE on stored text), and the column has statistics of its own,
 *   which the planner needs to estimate a `_search` (it ignores a partial index's expression).
 * - one GIN index over the folded text (trigrams), `brand_id` and `family_id` (btree_gin), for
 *   live products: a search narrowed by brand or family is intersected inside the index instead
 *   of reading every product that has the word. It replaces the expression index on search_text.
 *
 * TypeORM keeps the expression of a generated column in its `typeorm_metadata` table (which it
 * creates itself before migrations run); the row written here is what the entity's `asExpression`
 * is compared with.
 */
export class ProductSearchFolded1765080000000 implements MigrationInterface {
  name = 'ProductSearchFolded1765080000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS btree_gin WITH SCHEMA public`);
    await q.query(`ALTER TABLE "products" ADD "search_folded" text GENERATED ALWAYS AS (${FOLDED}) STORED NOT NULL`);
    await q.query(
      `CREATE TABLE IF NOT EXISTS "typeorm_metadata" ("type" character varying NOT NULL, "database" character varying, ` +
        `"schema" character varying, "table" character varying, "name" character varying, "value" text)`,
    );
    await q.query(
      `INSERT INTO "typeorm_metadata" ("database", "schema", "table", "type", "name", "value") VALUES (current_database(), current_schema(), 'products', 'GENERATED_COLUMN', 'search_folded', $1)`,
      [FOLDED],
    );
    await q.query(`DROP INDEX "IDX_products_search"`);
    await q.query(
      `CREATE INDEX "IDX_products_search_folded" ON "products" USING gin ("search_folded" public.gin_trgm_ops, "brand_id", "family_id") WHERE deleted = false`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "IDX_products_search_folded"`);
    await q.query(
      `CREATE INDEX "IDX_products_search" ON "products" USING gin (lower(immutable_unaccent("search_text")) public.gin_trgm_ops) WHERE deleted = false`,
    );
    // The table stays: TypeORM creates it anyway before it runs or reverts a migration while an entity has a generated column.
    await q.query(
      `DELETE FROM "typeorm_metadata" WHERE "type" = 'GENERATED_COLUMN' AND "table" = 'products' AND "name" = 'search_folded'`,
    );
    await q.query(`ALTER TABLE "products" DROP COLUMN "search_folded"`);
    // btree_gin stays: it lives in public, where other schemas' indexes may use it.
  }
}
