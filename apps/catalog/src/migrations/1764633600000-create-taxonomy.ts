import type { MigrationInterface, QueryRunner } from 'typeorm';
import { OUTBOX_DOWN_SQL, OUTBOX_UP_SQL } from '@pim/events';

// The statements are written out here, not derived from the entities at run time, so this
// migration keeps meaning what it meant when it first ran.

const COMMON_COLUMNS =
  `"_id" character(24) NOT NULL, "code" text NOT NULL, "name" jsonb NOT NULL, "description" jsonb NOT NULL DEFAULT '{}', ` +
  `"enabled" boolean NOT NULL DEFAULT true, "tags" text array NOT NULL DEFAULT '{}', "search_text" text NOT NULL, ` +
  `"version" integer NOT NULL DEFAULT '1', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, ` +
  `"created_by_name" text, "deleted" boolean NOT NULL DEFAULT false, "deleted_at" TIMESTAMP WITH TIME ZONE, "deleted_by" text`;

/** Table, primary key constraint (TypeORM's name) and the columns beyond the common ones. */
const TABLES: [table: string, pk: string, own: string][] = [
  ['brands', 'PK_fccd13f3d4cd2a3bb17b0d3c9fb', ''],
  ['category_trees', 'PK_8c5c5496af518d4ce2f21815e3a', ''],
  [
    'categories',
    'PK_41b10fde49e2e6b0c771fa2ad5e',
    `, "category_tree_id" character(24) NOT NULL, "parent_id" character(24), "path" text array NOT NULL`,
  ],
  [
    'families',
    'PK_ce3c6e88f9425d1401c7affacd4',
    `, "attribute_groups" text array NOT NULL DEFAULT '{}', "attributes" jsonb NOT NULL DEFAULT '[]'`,
  ],
  ['catalogs', 'PK_680bdf64e1771281159a472b8c7', `, "user_groups" text array NOT NULL DEFAULT '{}'`],
];

/**
 * Brands, category trees, categories, families and catalogs; the outbox; and what `_search`
 * needs: unaccent and pg_trgm (in `public`, where every app's search_path finds the one copy a
 * database can hold) and an IMMUTABLE unaccent wrapper an index may call.
 */
export class CreateTaxonomy1764633600000 implements MigrationInterface {
  name = 'CreateTaxonomy1764633600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS unaccent WITH SCHEMA public`);
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public`);
    // unaccent() is STABLE (it reads a dictionary that could change); indexes need IMMUTABLE.
    // Naming the dictionary and schema makes the result independent of search_path.
    await q.query(
      `CREATE FUNCTION "immutable_unaccent"(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT ` +
        `AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $$`,
    );
    for (const [table, pk, own] of TABLES) {
      await q.query(`CREATE TABLE "${table}" (${COMMON_COLUMNS}${own}, CONSTRAINT "${pk}" PRIMARY KEY ("_id"))`);
      await q.query(`CREATE UNIQUE INDEX "UQ_${table}_code_live" ON "${table}" ("code") WHERE deleted = false`);
      await q.query(`CREATE INDEX "IDX_${table}_created_at" ON "${table}" ("created_at", "_id")`);
      await q.query(
        `CREATE INDEX "IDX_${table}_search" ON "${table}" USING gin (lower(immutable_unaccent("search_text")) public.gin_trgm_ops) WHERE deleted = false`,
      );
      await q.query(`CREATE INDEX "IDX_${table}_tags" ON "${table}" USING gin ("tags") WHERE deleted = false`);
    }
    await q.query(`CREATE INDEX "IDX_categories_tree_live" ON "categories" ("category_tree_id") WHERE deleted = false`);
    await q.query(`CREATE INDEX "IDX_categories_parent_live" ON "categories" ("parent_id") WHERE deleted = false`);
    await q.query(`CREATE INDEX "IDX_categories_path" ON "categories" USING gin ("path") WHERE deleted = false`);
    for (const sql of OUTBOX_UP_SQL) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sql of OUTBOX_DOWN_SQL) await q.query(sql);
    for (const [table] of [...TABLES].reverse()) await q.query(`DROP TABLE "${table}"`);
    await q.query(`DROP FUNCTION "immutable_unaccent"(text)`);
  }
}
