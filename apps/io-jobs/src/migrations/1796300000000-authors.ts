import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every import and export names who created it. Before, a key acting for no user created them
 * without `created_by_name`; such a key is now their author by its own name (`ERP (API key)`). Which
 * key made an older one was not recorded, so those read `API key (name not recorded)`.
 */
export class Authors1796300000000 implements MigrationInterface {
  name = 'Authors1796300000000';

  async up(q: QueryRunner): Promise<void> {
    for (const table of ['imports', 'exports'])
      await q.query(
        `UPDATE "${table}" SET "created_by_name" = 'API key (name not recorded)' WHERE "created_by_name" IS NULL`,
      );
  }

  async down(): Promise<void> {
    // The authors written stay: they say what is known, and nothing read the nulls.
  }
}
