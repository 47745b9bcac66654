import type { MigrationInterface, QueryRunner } from 'typeorm';

// The statements are written out here, not derived from the entities at run time, so this
// migration keeps meaning what it meant when it first ran.

const RECORD_COLUMNS =
  `"_id" character(24) NOT NULL, "search_text" text NOT NULL, "version" integer NOT NULL DEFAULT '1', ` +
  `"created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, "created_by_name" text, ` +
  `"deleted" boolean NOT NULL DEFAULT false, "deleted_at" TIMESTAMP WITH TIME ZONE, "deleted_by" text`;

/** Table, primary key constraint (TypeORM's name) and the columns beyond the common ones. */
const TABLES: [table: string, pk: string, own: string][] = [
  [
    'attribute_groups',
    'PK_bbcc407507500cb162167592735',
    `"category_id" character(24), "key" text NOT NULL, "name" jsonb NOT NULL, "description" jsonb NOT NULL DEFAULT '{}', ` +
      `"sequence" integer NOT NULL DEFAULT '0', "enabled" boolean NOT NULL DEFAULT true, "users_groups" jsonb NOT NULL DEFAULT '[]', ` +
      `"tags" text array NOT NULL DEFAULT '{}'`,
  ],
  [
    'attributes',
    'PK_159db4e496d7e9659f4c875f96f',
    `"groups" jsonb NOT NULL DEFAULT '[]', "categories" jsonb NOT NULL DEFAULT '[]', "key" text NOT NULL, ` +
      `"name" jsonb NOT NULL DEFAULT '{}', "description" jsonb NOT NULL DEFAULT '{}', "type" text NOT NULL, "type_config" jsonb NOT NULL DEFAULT '{}', ` +
      `"unique" boolean NOT NULL DEFAULT false, "required" boolean NOT NULL DEFAULT false, "sequence" integer NOT NULL DEFAULT '0', ` +
      `"association" text NOT NULL, "enabled" boolean NOT NULL DEFAULT true, "protected_by_lgpd" boolean NOT NULL, ` +
      `"tags" text array NOT NULL DEFAULT '{}', "group_ids" text array NOT NULL DEFAULT '{}', "category_ids" text array NOT NULL DEFAULT '{}'`,
  ],
  [
    'attribute_options',
    'PK_60ecfaa68e95a240377b624168b',
    `"attribute_id" character(24) NOT NULL, "value" text NOT NULL, "label" jsonb NOT NULL, "sequence" integer NOT NULL DEFAULT '0', ` +
      `"enabled" boolean NOT NULL DEFAULT true, "tags" text array NOT NULL DEFAULT '{}', "fields" text array NOT NULL DEFAULT '{}'`,
  ],
];

/**
 * Attribute groups, attributes and attribute options. Each table gets what the taxonomy tables
 * have — its handle unique among live rows, trigram search over `search_text` and GIN on `tags`
 * (both over live rows) — plus the lookups its rules and lists need.
 */
export class CreateAttributes1764720000000 implements MigrationInterface {
  name = 'CreateAttributes1764720000000';

  async up(q: QueryRunner): Promise<void> {
    for (const [table, pk, own] of TABLES) {
      await q.query(`CREATE TABLE "${table}" (${RECORD_COLUMNS}, ${own}, CONSTRAINT "${pk}" PRIMARY KEY ("_id"))`);
      await q.query(
        `CREATE INDEX "IDX_${table}_search" ON "${table}" USING gin (lower(immutable_unaccent("search_text")) public.gin_trgm_ops) WHERE deleted = false`,
      );
      await q.query(`CREATE INDEX "IDX_${table}_tags" ON "${table}" USING gin ("tags") WHERE deleted = false`);
    }
    await q.query(
      `CREATE UNIQUE INDEX "UQ_attribute_groups_key_live" ON "attribute_groups" ("key") WHERE deleted = false`,
    );
    await q.query(`CREATE INDEX "IDX_attribute_groups_created_at" ON "attribute_groups" ("created_at", "_id")`);
    await q.query(
      `CREATE INDEX "IDX_attribute_groups_category_live" ON "attribute_groups" ("category_id") WHERE deleted = false`,
    );

    await q.query(`CREATE UNIQUE INDEX "UQ_attributes_key_live" ON "attributes" ("key") WHERE deleted = false`);
    await q.query(`CREATE INDEX "IDX_attributes_created_at" ON "attributes" ("created_at", "_id")`);
    // `group_ids=<id>` and `category_ids=<id>` filters, and the in-use checks of group and category deletes.
    await q.query(
      `CREATE INDEX "IDX_attributes_group_ids" ON "attributes" USING gin ("group_ids") WHERE deleted = false`,
    );
    await q.query(
      `CREATE INDEX "IDX_attributes_category_ids" ON "attributes" USING gin ("category_ids") WHERE deleted = false`,
    );

    await q.query(
      `CREATE UNIQUE INDEX "UQ_attribute_options_value_live" ON "attribute_options" ("attribute_id", "value") WHERE deleted = false`,
    );
    // Options are always listed per attribute; the default sort then reads this index in order.
    await q.query(
      `CREATE INDEX "IDX_attribute_options_attribute_created_at" ON "attribute_options" ("attribute_id", "created_at", "_id") WHERE deleted = false`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const [table] of [...TABLES].reverse()) await q.query(`DROP TABLE "${table}"`);
  }
}
