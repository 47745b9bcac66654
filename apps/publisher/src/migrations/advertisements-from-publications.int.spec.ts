import 'reflect-metadata';
import type { DataSource } from 'typeorm';
import { createDataSource, migrate } from '@pim/db';
import { createTestDatabase, type TestDatabase } from '@pim/testing';
import { dataSourceOptions } from '../data-source';
import { migrations } from './index';

const AD = '6740a1b2c3d4e5f6000000a1';
const [OLDER, NEWER, FAILED] = ['6740a1b2c3d4e5f6000000b1', '6740a1b2c3d4e5f6000000b2', '6740a1b2c3d4e5f6000000b3'];

// The advertisements' copied "published" columns: dropped going up, filled again from the publications going down.
describe('publisher migration AdvertisementsFromPublications (real Postgres)', () => {
  let db: TestDatabase;
  let ds: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('pubadsmig');
    expect((await migrate(dataSourceOptions(db.url))).at(-1)).toBe(new migrations[migrations.length - 1]().name);
    ds = createDataSource(dataSourceOptions(db.url));
    await ds.initialize();
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  const columns = async (): Promise<string[]> =>
    (
      await ds.query(
        `SELECT column_name FROM information_schema.columns WHERE table_schema = 'publisher' AND table_name = 'advertisements' ORDER BY 1`,
      )
    ).map((r: { column_name: string }) => r.column_name);

  it('drops the copied columns for an index over published publications, and fills them again going down', async () => {
    expect(await columns()).toEqual(['_id', 'channel_id', 'created_at', 'latest_publication_id', 'product_id']);
    await ds.query(
      `INSERT INTO advertisements (_id, product_id, channel_id, created_at, latest_publication_id)
       VALUES ($1, '6740a1b2c3d4e5f6000000c1', '6740a1b2c3d4e5f6000000d1', now(), $2)`,
      [AD, FAILED],
    );
    const publication = (id: string, status: string, at: string, hash: string) =>
      ds.query(
        `INSERT INTO publications (_id, created_at, updated_at, product_id, channel_id, advertisement_id, status, origin,
           product_snapshot, channel_code, content_hash, outcome_at)
         VALUES ($1, now(), now(), '6740a1b2c3d4e5f6000000c1', '6740a1b2c3d4e5f6000000d1', $2, $3, 'api', '{}', 'shop', $4, $5)`,
        [id, AD, status, hash, at],
      );
    await publication(OLDER, 'published', '2026-11-01T10:00:00Z', 'h-older');
    await publication(NEWER, 'published', '2026-11-02T10:00:00Z', 'h-newer');
    await publication(FAILED, 'failed', '2026-11-03T10:00:00Z', 'h-failed');

    await ds.undoLastMigration({ transaction: 'each' });
    expect(await ds.query(`SELECT published_publication_id, published_at, published_hash FROM advertisements`)).toEqual(
      [{ published_publication_id: NEWER, published_at: new Date('2026-11-02T10:00:00Z'), published_hash: 'h-newer' }],
    );
    expect(await ds.query(`SELECT 1 FROM pg_indexes WHERE indexname = 'IDX_publications_published'`)).toEqual([]);

    await ds.runMigrations({ transaction: 'each' });
    expect(await columns()).toEqual(['_id', 'channel_id', 'created_at', 'latest_publication_id', 'product_id']);
    expect(await ds.query(`SELECT indexdef FROM pg_indexes WHERE indexname = 'IDX_publications_published'`)).toEqual([
      { indexdef: expect.stringMatching(/\(advertisement_id, outcome_at\) WHERE \(status = 'published'::text\)$/) },
    ]);
  });
});
