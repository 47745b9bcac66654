import type { DataSource } from 'typeorm';
import { createDataSource, migrate } from '@pim/db';
import type { EventEnvelope } from '@pim/events';
import type {
  AttributeGroupInput,
  AttributeGroupView,
  AttributeInput,
  AttributeOptionInput,
  AttributeOptionView,
  AttributeView,
  BrandView,
  CatalogInput,
  CatalogView,
  CategoryInput,
  CategoryTreeView,
  CategoryView,
  FamilyInput,
  FamilyView,
  ProductInput,
  ProductView,
  TaxonomyInput,
} from '@pim/resources';
import { workflow as pb } from '@pim/contracts';
import { createRpcClient } from '@pim/rpc';
import { createTestDatabase, startAppProcess, type AppProcess, type TestDatabase } from '@pim/testing';
import { usersGroupsDirectory } from '../links/users-groups.directory';
import { dataSourceOptions } from '../data-source';
import { taxonomyServices, type TaxonomyServices } from '../taxonomy.module';
import { attributeServices, type AttributeServices } from '../attributes.module';
import { productUsage, type ProductUsage } from '../repositories/products.repository';
import { productServices, type ProductServices } from '../products.module';
import { relationServices, type RelationServices } from '../relations.module';

/** A migrated database of this app's own, its services, and factories that return what they inserted. */
export interface CatalogTestContext {
  db: TestDatabase;
  ds: DataSource;
  services: TaxonomyServices & AttributeServices & ProductServices & RelationServices;
  /** What the services ask about products; a test may stand in counts (reset() restores the real ones). */
  usage: ProductUsage;
  newBrand(overrides?: Partial<TaxonomyInput>): Promise<BrandView>;
  newCategoryTree(overrides?: Partial<TaxonomyInput>): Promise<CategoryTreeView>;
  /** A category in the given tree (a new tree when none is given). */
  newCategory(overrides?: Partial<CategoryInput>): Promise<CategoryView>;
  newFamily(overrides?: Partial<FamilyInput>): Promise<FamilyView>;
  newCatalog(overrides?: Partial<CatalogInput>): Promise<CatalogView>;
  newAttributeGroup(overrides?: Partial<AttributeGroupInput>): Promise<AttributeGroupView>;
  /** A text attribute for products unless overridden. */
  newAttribute(overrides?: Partial<AttributeInput>): Promise<AttributeView>;
  /** An option of the attribute (a new select attribute when none is given). */
  newOption(attributeId?: string, overrides?: Partial<AttributeOptionInput>): Promise<AttributeOptionView>;
  /** A simple product with a fresh code and an English name unless overridden. */
  newProduct(overrides?: Partial<ProductInput>): Promise<ProductView>;
  /**
   * A users group in the workflow app (started as its own process, on this test database, the
   * first time a test needs one), returning its id.
   */
  newUsersGroup(name?: string): Promise<string>;
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
  const usage: ProductUsage = { ...productUsage };
  // Users groups live in the workflow app: the first check or users group a test needs starts it.
  let workflow: Promise<AppProcess> | undefined;
  const workflowApp = () => (workflow ??= startAppProcess('workflow', db.url));
  const directory = usersGroupsDirectory(async () => (await workflowApp()).address);
  let groups: ReturnType<typeof createRpcClient<pb.UsersGroupsServiceClient>> | undefined;
  const services = {
    ...taxonomyServices(ds, directory),
    ...attributeServices(ds, directory, usage),
    ...productServices(ds),
    ...relationServices(ds),
  };
  let n = 0;
  const unique = (prefix: string) => `${prefix}_${++n}`;
  const base = (prefix: string) => {
    const code = unique(prefix);
    return { code, name: { en: `${prefix} ${code}` } };
  };
  const newAttribute = (overrides: Partial<AttributeInput> = {}) =>
    services.attributes.create({
      key: unique('attribute'),
      association: 'product',
      protected_by_lgpd: false,
      ...overrides,
    });
  return {
    db,
    ds,
    services,
    usage,
    newBrand: (overrides = {}) => services.brands.create({ ...base('brand'), ...overrides }),
    newCategoryTree: (overrides = {}) => services.categoryTrees.create({ ...base('tree'), ...overrides }),
    async newCategory(overrides = {}) {
      const category_tree_id = overrides.category_tree_id ?? (await services.categoryTrees.create(base('tree')))._id;
      return services.categories.create({ ...base('category'), category_tree_id, ...overrides });
    },
    newFamily: (overrides = {}) => services.families.create({ ...base('family'), ...overrides }),
    newCatalog: (overrides = {}) => services.catalogs.create({ ...base('catalog'), ...overrides }),
    newAttributeGroup: (overrides = {}) => {
      const { code, name } = base('group');
      return services.attributeGroups.create({ key: code, name, ...overrides });
    },
    newAttribute,
    async newOption(attributeId, overrides = {}) {
      const attribute = attributeId ?? (await newAttribute({ type: 'select' }))._id;
      const value = unique('option');
      return services.attributeOptions.create(attribute, { value, label: { en: value }, ...overrides });
    },
    newProduct: (overrides = {}) => services.products.create({ ...base('product'), type: 'simple', ...overrides }),
    async newUsersGroup(name = unique('group')) {
      groups ??= createRpcClient(pb.UsersGroupsServiceClient, {
        service: 'workflow',
        address: (await workflowApp()).address,
        deadlineMs: 5_000,
      });
      const { data } = await groups.createUsersGroup({ input: { source_id: 'test', name, users: [] } });
      return data!.id;
    },
    async events() {
      const rows: { envelope: EventEnvelope }[] = await ds.query('SELECT envelope FROM catalog.outbox ORDER BY id');
      return rows.map((r) => r.envelope);
    },
    async reset() {
      Object.assign(usage, productUsage);
      await ds.query(
        'TRUNCATE catalog.brands, catalog.category_trees, catalog.categories, catalog.families, catalog.catalogs, catalog.attribute_groups, catalog.attributes, catalog.attribute_options, catalog.products, catalog.product_relations, catalog.completeness_jobs, catalog.applied_changes, catalog.outbox',
      );
    },
    async close() {
      directory.close();
      groups?.close();
      await (await workflow?.catch(() => undefined))?.stop();
      await ds.destroy();
      await db.drop();
    },
  };
}

/**
 * The context of a describe block: built once before its tests, emptied before each (before the
 * block's own beforeEach hooks, which come later), closed after; `set` receives it.
 */
export function useCatalogContext(set: (ctx: CatalogTestContext) => void): void {
  let ctx: CatalogTestContext | undefined;
  beforeAll(async () => {
    ctx = await catalogTestContext();
    set(ctx);
  });
  afterAll(async () => {
    await ctx?.close();
  });
  beforeEach(async () => {
    await ctx?.reset();
  });
}
