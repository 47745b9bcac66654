import 'reflect-metadata';
import { createDataSource, migrate } from '@pim/db';
import { createTestDatabase, type TestDatabase } from '@pim/testing';
import { dataSourceOptions } from '../data-source';
import { FormulaQuote1796012400000 } from './1796012400000-formula-quote';
import { migrations } from './index';

const AT = migrations.indexOf(FormulaQuote1796012400000);
const BEFORE = migrations.slice(0, AT);
const UP_TO = migrations.slice(0, AT + 1);

/** An export row as the columns before the migration hold it. */
const exportRow = (id: string, fileType: string, status: string) =>
  `INSERT INTO io_jobs.exports ("_id", "created_at", "updated_at", "search_text", "file_type", "status", "file_key", "metadata")
   VALUES ('${id}', now(), now(), '', '${fileType}', '${status}', 'exports/x/${id}', '{}')`;

/** An import row as the columns before the migration hold it. */
const importRow = (id: string, status: string) =>
  `INSERT INTO io_jobs.imports ("_id", "created_at", "updated_at", "search_text", "status", "columns_count", "rows_count", "proccess_count", "commit_count", "errors_count")
   VALUES ('${id}', now(), now(), '', '${status}', 0, 0, 0, 0, 0)`;

// The neutralizing quote's settings on a database that already holds exports and imports: up,
// down and up again; then the time zones and the search by file name, on the same rows.
describe('io-jobs migrations of settings and search: FormulaQuote, TimeZones, SearchFileNames, Authors', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('iojobsmig');
  });

  afterAll(async () => {
    await db?.drop();
  });

  it('turns the settings on for what has yet to run, and off for what already ran without them', async () => {
    await migrate({ ...dataSourceOptions(db.url), migrations: BEFORE });
    const ds = createDataSource(dataSourceOptions(db.url));
    await ds.initialize();
    try {
      await ds.query(exportRow('e00000000000000000000001', 'csv', 'completed'));
      await ds.query(exportRow('e00000000000000000000002', 'xlsx', 'completed'));
      await ds.query(exportRow('e00000000000000000000003', 'csv', 'failed'));
      await ds.query(exportRow('e00000000000000000000004', 'csv', 'pending'));
      for (const [i, status] of ['uploaded', 'mapped', 'queued', 'processing', 'completed', 'canceled'].entries())
        await ds.query(importRow(`i0000000000000000000000${i}`, status));

      expect(await migrate({ ...dataSourceOptions(db.url), migrations: UP_TO })).toEqual(['FormulaQuote1796012400000']);
      const exports: { _id: string; on: boolean }[] = await ds.query(
        `SELECT "_id", "csv_neutralize_formulas" AS on FROM io_jobs.exports ORDER BY "_id"`,
      );
      expect(exports.map((e) => e.on)).toEqual([false, true, true, true]);
      const imports: { status: string; on: boolean }[] = await ds.query(
        `SELECT "status", "strip_formula_quote" AS on FROM io_jobs.imports ORDER BY "_id"`,
      );
      expect(Object.fromEntries(imports.map((i) => [i.status, i.on]))).toEqual({
        uploaded: true,
        mapped: true,
        queued: true,
        processing: false,
        completed: false,
        canceled: false,
      });

      await ds.undoLastMigration({ transaction: 'each' });
      const columns: { column_name: string }[] = await ds.query(
        `SELECT column_name FROM information_schema.columns WHERE table_schema = 'io_jobs'
           AND column_name IN ('csv_neutralize_formulas', 'strip_formula_quote')`,
      );
      expect(columns).toEqual([]);
      expect(await migrate({ ...dataSourceOptions(db.url), migrations: UP_TO })).toEqual(['FormulaQuote1796012400000']);
    } finally {
      await ds.destroy();
    }
  });

  it('says UTC on every export and import made before time zones, searches them by file name and names an author', async () => {
    expect(await migrate(dataSourceOptions(db.url))).toEqual([
      'TimeZones1796100000000',
      'SearchFileNames1796100000001',
      'Authors1796300000000',
    ]);
    const ds = createDataSource(dataSourceOptions(db.url));
    await ds.initialize();
    try {
      const zones: { time_zone: string }[] = await ds.query(
        `SELECT "time_zone" FROM io_jobs.exports UNION ALL SELECT "time_zone" FROM io_jobs.imports`,
      );
      expect(zones).toHaveLength(10);
      expect(new Set(zones.map((z) => z.time_zone))).toEqual(new Set(['UTC']));
      const searched: { search_text: string; file_name: string | null }[] = await ds.query(
        `SELECT "search_text", "file_name" FROM io_jobs.exports UNION ALL SELECT "search_text", "file_name" FROM io_jobs.imports`,
      );
      for (const row of searched) expect(row.search_text).toBe(row.file_name ?? '');
      const authors: { created_by_name: string }[] = await ds.query(
        `SELECT "created_by_name" FROM io_jobs.exports UNION ALL SELECT "created_by_name" FROM io_jobs.imports`,
      );
      expect(new Set(authors.map((a) => a.created_by_name))).toEqual(new Set(['API key (name not recorded)']));
      for (let i = 0; i < 3; i++) await ds.undoLastMigration({ transaction: 'each' });
      expect(await migrate(dataSourceOptions(db.url))).toEqual([
        'TimeZones1796100000000',
        'SearchFileNames1796100000001',
        'Authors1796300000000',
      ]);
    } finally {
      await ds.destroy();
    }
  });
});
