import type { DataSource } from 'typeorm';
import { createDataSource, migrate } from '@pim/db';
import type { EventEnvelope } from '@pim/events';
import type { BrandView, CatalogInput, CatalogView, CategoryInput, CategoryTreeView, CategoryView, FamilyInput, FamilyView, TaxonomyInput } from '@pim/resources';
import { createTestDatabase, type TestDatabase } from '@pim/testing';
import { dataSourceOptions } from '../data-source';
import { taxonomyServices, type TaxonomyServices } from '../taxonomy/taxonomy.module';

/** A migrated database of this app's own, its services, and factories that return what they inserted. */
export interface CatalogTestContext {
  db: TestDatabase;
  ds: DataSource;
  services: TaxonomyServices;
  newBrand(overrides?: Partial<TaxonomyInput>): Promise<BrandView>;
  newCategoryTree(overrides?: Partial<TaxonomyInput>): Promise<CategoryTreeView>;
  /** A category in the given tree (a new tree when none is given). */
  newCategory(overrides?: Partial<CategoryInput>): Promise<CategoryView>;
  newFamily(overrides?: Partial<FamilyInput>): Promise<FamilyView>;
  newCatalog(overrides?: Partial<CatalogInput>): Promise<CatalogView>;
  /** Every event in the outbox, oldest first. */
  events(): Promise<EventEnvelope[]>;
  /** Empties every table between tests. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/** Builds the context for one test file. */
export async function catalogTestContext(): Promise<CatalogTestContext> {
  const db = await createTestDatabase('catalog');
  await migrate(dataSourceOptions(db.url));
  const ds = createDataSource(dataSourceOptions(db.url));
  await ds.initialize();
  const services = taxonomyServices(ds);
  let n = 0;
  const unique = (prefix: string) => `${prefix}_${++n}`;
  const base = (prefix: string) => {
    const code = unique(prefix);
    return { code, name: { en: `${prefix} ${code}` } };
  };
  return {
    db,
    ds,
    services,
    newBrand: (overrides = {}) => services.brands.create({ ...base('brand'), ...overrides }),
    newCategoryTree: (overrides = {}) => services.categoryTrees.create({ ...base('tree'), ...overrides }),
    async newCategory(overrides = {}) {
      const category_tree_id = overrides.category_tree_id ?? (await services.categoryTrees.create(base('tree')))._id;
      return services.categories.create({ ...base('category'), category_tree_id, ...overrides });
    },
    newFamily: (overrides = {}) => services.families.create({ ...base('family'), ...overrides }),
    newCatalog: (overrides = {}) => services.catalogs.create({ ...base('catalog'), ...overrides }),
    async events() {
      const rows: { envelope: EventEnvelope }[] = await ds.query('SELECT envelope FROM catalog.outbox ORDER BY id');
      return rows.map((r) => r.envelope);
    },
    async reset() {
      await ds.query('TRUNCATE catalog.brands, catalog.category_trees, catalog.categories, catalog.families, catalog.catalogs, catalog.outbox');
    },
    async close() {
      await ds.destroy();
      await db.drop();
    },
  };
}
