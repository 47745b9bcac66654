import 'reflect-metadata';
import { createDataSource, migrate } from '@pim/db';
import { createTestDatabase, type TestDatabase } from '@pim/testing';
import { dataSourceOptions } from '../data-source';
import { migrations } from './index';

/** The four that create the resource tables, then the search column; every later one adds to them. */
const CREATING = [
  'CreateTaxonomy1764633600000',
  'CreateAttributes1764720000000',
  'CreateProducts1764806400000',
  'CreateProductRelations1764892800000',
];
const FOLDED = 'ProductSearchFolded1765080000000';
const ALL = migrations.map((m) => new m().name);
// typeorm_metadata is TypeORM's: it creates it before running or reverting migrations, as ProductEntity has a generated column.
const TAXONOMY_TABLES = [
  'brands',
  'catalogs',
  'categories',
  'category_trees',
  'families',
  'migrations',
  'outbox',
  'typeorm_metadata',
];

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
        (
          await ds.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'catalog' ORDER BY 1`)
        ).map((r: { table_name: string }) => r.table_name);
      expect(await tables()).toEqual(
        [
          'applied_batches',
          'applied_changes',
          'attribute_groups',
          'attribute_options',
          'attributes',
          'completeness_jobs',
          'dead_letters',
          'idempotent_calls',
          'product_relations',
          'products',
          ...TAXONOMY_TABLES,
        ].sort(),
      );
      const [{ folded }] = await ds.query(`SELECT catalog.immutable_unaccent('Crème Brûlée') AS folded`);
      expect(folded).toBe('Creme Brulee');
      const gin: { indexname: string }[] = await ds.query(
        `SELECT indexname FROM pg_indexes WHERE schemaname = 'catalog' AND indexdef LIKE '%USING gin%' ORDER BY 1`,
      );
      expect(gin.map((i) => i.indexname)).toEqual(
        expect.arrayContaining([
          'IDX_brands_search',
          'IDX_categories_path',
          'IDX_categories_tags',
          'IDX_attributes_search',
          'IDX_attributes_group_ids',
          'IDX_attribute_options_search',
          'IDX_products_search_folded',
          'IDX_products_attributes',
          'IDX_product_relations_items',
        ]),
      );

      expect(ALL.slice(0, CREATING.length + 1)).toEqual([...CREATING, FOLDED]);
      const renderedColumns = async () =>
        (
          (
            await ds.query(
              `SELECT count(*)::int AS n FROM information_schema.columns WHERE table_schema = 'catalog' AND table_name = 'products' AND column_name = 'rendered'`,
            )
          )[0] as { n: number }
        ).n;
      expect(await renderedColumns()).toBe(1);
      await ds.query(
        `INSERT INTO catalog.products ("_id", "search_text", "created_at", "updated_at", "code", "name", "type") VALUES ('0123456789abcdef01234567', E'SKU-1\\nCrème Brûlée', now(), now(), 'SKU-1', '{}', 'simple')`,
      );
      expect(await ds.query(`SELECT search_folded FROM catalog.products`)).toEqual([
        { search_folded: 'sku-1\ncreme brulee' },
      ]);

      // Every migration after the search column, newest first: the dead letters, the completeness jobs and the rendered view go.
      for (let i = ALL.length; i > CREATING.length + 1; i--) await ds.undoLastMigration({ transaction: 'each' });
      expect(await tables()).toEqual(
        [
          'attribute_groups',
          'attribute_options',
          'attributes',
          'product_relations',
          'products',
          ...TAXONOMY_TABLES,
        ].sort(),
      );
      expect(await renderedColumns()).toBe(0);
      await ds.undoLastMigration({ transaction: 'each' });
      expect(await tables()).toEqual(
        [
          'attribute_groups',
          'attribute_options',
          'attributes',
          'product_relations',
          'products',
          ...TAXONOMY_TABLES,
        ].sort(),
      );
      const search: { indexname: string }[] = await ds.query(
        `SELECT indexname FROM pg_indexes WHERE schemaname = 'catalog' AND tablename = 'products' AND indexname LIKE 'IDX_products_search%'`,
      );
      expect(search.map((i) => i.indexname)).toEqual(['IDX_products_search']);
      expect(await ds.query(`SELECT count(*)::int AS n FROM catalog.typeorm_metadata`)).toEqual([{ n: 0 }]);
      await ds.undoLastMigration({ transaction: 'each' });
      expect(await tables()).toEqual(
        ['attribute_groups', 'attribute_options', 'attributes', 'products', ...TAXONOMY_TABLES].sort(),
      );
      await ds.undoLastMigration({ transaction: 'each' });
      expect(await tables()).toEqual(
        ['attribute_groups', 'attribute_options', 'attributes', ...TAXONOMY_TABLES].sort(),
      );
      await ds.undoLastMigration({ transaction: 'each' });
      expect(await tables()).toEqual(TAXONOMY_TABLES);
      await ds.undoLastMigration({ transaction: 'each' });
      expect(await tables()).toEqual(['migrations', 'typeorm_metadata']);
      expect(
        await ds.query(
          `SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'catalog'`,
        ),
      ).toEqual([]);
    } finally {
      await ds.destroy();
    }
    expect(await migrate(dataSourceOptions(db.url))).toEqual(ALL);
  });
});
