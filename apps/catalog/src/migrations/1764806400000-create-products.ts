import type { MigrationInterface, QueryRunner } from 'typeorm';

// The statements are written out here, not derived from the entities at run time, so this
// migration keeps meaning what it meant when it first ran.

const COLUMNS =
  `"_id" character(24) NOT NULL, "search_text" text NOT NULL, "version" integer NOT NULL DEFAULT '1', ` +
  `"created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, "created_by_name" text, ` +
  `"deleted" boolean NOT NULL DEFAULT false, "deleted_at" TIMESTAMP WITH TIME ZONE, "deleted_by" text, ` +
  `"family_id" character(24), "brand_id" character(24), "fulfilled" double precision, "categories" text array NOT NULL DEFAULT '{}', ` +
  `"category_trees" text array NOT NULL DEFAULT '{}', "product_id" character(24), "catalogs" jsonb NOT NULL DEFAULT '[]', ` +
  `"attribute_groups" text array NOT NULL DEFAULT '{}', "attributes_schema_snapshot" jsonb NOT NULL DEFAULT '{}', ` +
  `"attributes_options_snapshot" jsonb NOT NULL DEFAULT '{}', "code" text NOT NULL, "name" jsonb NOT NULL, "description" jsonb NOT NULL DEFAULT '{}', ` +
  `"image" text, "images" text array NOT NULL DEFAULT '{}', "attributes" jsonb NOT NULL DEFAULT '{}', "enabled" boolean NOT NULL DEFAULT true, ` +
  `"tags" text array NOT NULL DEFAULT '{}', "type" text NOT NULL, "product_approval" character(24), "last_approval_at" TIMESTAMP WITH TIME ZONE, ` +
  `"published" boolean NOT NULL DEFAULT false, "last_publishment_id" text, "last_published_at" TIMESTAMP WITH TIME ZONE, ` +
  `"publishments" jsonb NOT NULL DEFAULT '[]', "completeness" jsonb NOT NULL DEFAULT '{}', "completeness_min" integer NOT NULL DEFAULT '100'`;

/**
 * Products. Besides what every catalog table has (code unique among live rows, trigram search
 * over `search_text`, GIN on tags), the lookups lists and rules need: GIN on categories, category
 * trees and attribute groups (filters, the in-use checks of their deletes) and on `attributes` (`@>` lookups: unique values, option usage, and
 * `attributes.<key>` filters later), b-trees on the single references and on completeness_min.
 */
export class CreateProducts1764806400000 implements MigrationInterface {
  name = 'CreateProducts1764806400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "products" (${COLUMNS}, CONSTRAINT "PK_bb9432d5569253ad39cd0061760" PRIMARY KEY ("_id"))`,
    );
    await q.query(`CREATE UNIQUE INDEX "UQ_products_code_live" ON "products" ("code") WHERE deleted = false`);
    await q.query(`CREATE INDEX "IDX_products_created_at" ON "products" ("created_at", "_id")`);
    await q.query(
      `CREATE INDEX "IDX_products_search" ON "products" USING gin (lower(immutable_unaccent("search_text")) public.gin_trgm_ops) WHERE deleted = false`,
    );
    await q.query(`CREATE INDEX "IDX_products_tags" ON "products" USING gin ("tags") WHERE deleted = false`);
    await q.query(
      `CREATE INDEX "IDX_products_categories" ON "products" USING gin ("categories") WHERE deleted = false`,
    );
    await q.query(
      `CREATE INDEX "IDX_products_category_trees" ON "products" USING gin ("category_trees") WHERE deleted = false`,
    );
    await q.query(
      `CREATE INDEX "IDX_products_attribute_groups" ON "products" USING gin ("attribute_groups") WHERE deleted = false`,
    );
    await q.query(
      `CREATE INDEX "IDX_products_attributes" ON "products" USING gin ("attributes") WHERE deleted = false`,
    );
    await q.query(`CREATE INDEX "IDX_products_family_live" ON "products" ("family_id") WHERE deleted = false`);
    await q.query(`CREATE INDEX "IDX_products_brand_live" ON "products" ("brand_id") WHERE deleted = false`);
    await q.query(`CREATE INDEX "IDX_products_product_live" ON "products" ("product_id") WHERE deleted = false`);
    await q.query(
      `CREATE INDEX "IDX_products_completeness_min_live" ON "products" ("completeness_min") WHERE deleted = false`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "products"`);
  }
}
