import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a channel last accepted of an advertisement is read from its publications (the latest
 * published one) instead of being copied onto the advertisement at every outcome: an index serves
 * that read, and the copied columns go. Down: the columns come back, filled from the publications.
 */
export class AdvertisementsFromPublications1796000000000 implements MigrationInterface {
  name = 'AdvertisementsFromPublications1796000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX "IDX_publications_published" ON "publications" ("advertisement_id", "outcome_at") ` +
        `WHERE status = 'published'`,
    );
    await q.query(`ALTER TABLE "advertisements" DROP COLUMN "published_publication_id"`);
    await q.query(`ALTER TABLE "advertisements" DROP COLUMN "published_at"`);
    await q.query(`ALTER TABLE "advertisements" DROP COLUMN "published_hash"`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "advertisements" ADD "published_publication_id" character(24)`);
    await q.query(`ALTER TABLE "advertisements" ADD "published_at" TIMESTAMP WITH TIME ZONE`);
    await q.query(`ALTER TABLE "advertisements" ADD "published_hash" text`);
    await q.query(
      `UPDATE "advertisements" a SET "published_publication_id" = p."_id", "published_at" = p."outcome_at", "published_hash" = p."content_hash"
         FROM (SELECT DISTINCT ON ("advertisement_id") "advertisement_id", "_id", "outcome_at", "content_hash"
                 FROM "publications" WHERE status = 'published'
                ORDER BY "advertisement_id", "outcome_at" DESC) AS p
        WHERE a."_id" = p."advertisement_id"`,
    );
    await q.query(`DROP INDEX "IDX_publications_published"`);
  }
}
