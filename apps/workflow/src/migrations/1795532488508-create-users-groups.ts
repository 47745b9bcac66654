import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The users_groups table: the common record columns, its search text, and the declared fields; the name is unique among live groups. */
export class CreateUsersGroups1795532488508 implements MigrationInterface {
  name = 'CreateUsersGroups1795532488508';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "users_groups" ("_id" character(24) NOT NULL, "version" integer NOT NULL DEFAULT '1', ` +
        `"created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, "created_by_name" text, ` +
        `"deleted" boolean NOT NULL DEFAULT false, "deleted_at" TIMESTAMP WITH TIME ZONE, "deleted_by" text, ` +
        `"search_text" text NOT NULL, ` +
        `"source_id" text NOT NULL, "name" text NOT NULL, "description" text, "has_full_product_access" boolean NOT NULL DEFAULT false, "users" jsonb NOT NULL, CONSTRAINT "PK_26bd4d0e14f7e5b8369c978d269" PRIMARY KEY ("_id"))`,
    );
    await q.query(`CREATE UNIQUE INDEX "UQ_users_groups_name_live" ON "users_groups" ("name") WHERE deleted = false`);
    await q.query(`CREATE INDEX "IDX_users_groups_created_at" ON "users_groups" ("created_at", "_id")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "users_groups"`);
  }
}
