import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A GIN index over users groups' members: which groups list a user, on every access check. */
export class UsersGroupsMembersIndex1795627000000 implements MigrationInterface {
  name = 'UsersGroupsMembersIndex1795627000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX "IDX_users_groups_members" ON "users_groups" USING gin ("users" jsonb_path_ops) WHERE deleted = false`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "IDX_users_groups_members"`);
  }
}
