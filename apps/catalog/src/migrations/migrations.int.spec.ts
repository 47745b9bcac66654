import 'reflect-metadata';
import { createDataSource, migrate } from '@pim/db';
import { createTestDatabase, type TestDatabase } from '@pim/testing';
import { dataSourceOptions } from '../data-source';
import { migrations } from './index';

/** The four that create tables; every later one changes them (columns, indexes). */
const CREATING = ['CreateTaxonomy1764633600000', 'CreateAttributes1764720000000', 'CreateProducts1764806400000', 'CreateProductRelations1764892800000'];
const ALL = migrations.map((m) => new m().name);
const TAXONOMY_TABLES = ['brands', 'catalogs', 'categories', 'category_trees', 'families', 'migrations', 'outbox'];

// The migrations up, down and up again on a real database.
describe('catalog migrations', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('catalogmig');
  });

  afterAll(async () => {
    await db?.drop();
  });

  it('creates the tables, the search function and indexes, and removes them again, newest first', async () => {
    expect(await migrate(dataSourceOptions(db.url))).toEqual(ALL);
    const ds = createDataSource(dataSourceOptions(db.url));
    await ds.initialize();
    try {
      const tables = async () =>
        (await ds.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'catalog' ORDER BY 1`)).map((r: { table_name: string }) => r.table_name);
      expect(await tables()).toEqual(['attribute_groups', 'attribute_options', 'attributes', 'completeness_jobs', 'product_relations', 'products', ...TAXONOMY_TABLES].sort());
      const [{ folded }] = await ds.query(`SELECT catalog.immutable_unaccent('Crème Brûlée') AS folded`);
      expect(folded).toBe('Creme Brulee');
      const gin: { indexname: string }[] = await ds.query(`SELECT indexname FROM pg_indexes WHERE schemaname = 'catalog' AND indexdef LIKE '%USING gin%' ORDER BY 1`);
      expect(gin.map((i) => i.indexname)).toEqual(
        expect.arrayContaining(['IDX_brands_search', 'IDX_categories_path', 'IDX_categories_tags', 'IDX_attributes_search', 'IDX_attributes_group_ids', 'IDX_attribute_options_search', 'IDX_products_search', 'IDX_products_attributes', 'IDX_product_relations_items']),
      );

      expect(ALL.slice(0, CREATING.length)).toEqual(CREATING);
      const [{ n: renderedColumns }] = await ds.query(`SELECT count(*)::int AS n FROM information_schema.columns WHERE table_schema = 'catalog' AND table_name = 'products' AND column_name = 'rendered'`);
      expect(renderedColumns).toBe(1);
      for (let i = ALL.length; i > CREATING.length; i--) await ds.undoLastMigration({ transaction: 'each' });
      expect(await tables()).toEqual(['attribute_groups', 'attribute_options', 'attributes', 'product_relations', 'products', ...TAXONOMY_TABLES].sort());
      const [{ n: afterUndo }] = await ds.query(`SELECT count(*)::int AS n FROM information_schema.columns WHERE table_schema = 'catalog' AND table_name = 'products' AND column_name = 'rendered'`);
      expect(afterUndo).toBe(0);
      await ds.undoLastMigration({ transaction: 'each' });
      expect(await tables()).toEqual(['attribute_groups', 'attribute_options', 'attributes', 'products', ...TAXONOMY_TABLES].sort());
      await ds.undoLastMigration({ transaction: 'each' });
      expect(await tables()).toEqual(['attribute_groups', 'attribute_options', 'attributes', ...TAXONOMY_TABLES].sort());
      await ds.undoLastMigration({ transaction: 'each' });
      expect(await tables()).toEqual(TAXONOMY_TABLES);
      await ds.undoLastMigration({ transaction: 'each' });
      expect(await tables()).toEqual(['migrations']);
      expect(await ds.query(`SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'catalog'`)).toEqual([]);
    } finally {
      await ds.destroy();
    }
    expect(await migrate(dataSourceOptions(db.url))).toEqual(ALL);
  });
});
