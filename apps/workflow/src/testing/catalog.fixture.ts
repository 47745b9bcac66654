import { attributes as apb, products as ppb, relations as rpb, taxonomy as tpb } from '@pim/contracts';
import { createRpcClient } from '@pim/rpc';
import { createTestDatabase, startAppProcess, type AppProcess, type TestDatabase } from '@pim/testing';

/** A real catalog app for the workflow app's tests: its own database and process, and factories that return what they made. */
export interface CatalogFixture {
  db: TestDatabase;
  process: AppProcess;
  /** `127.0.0.1:<port>` of its gRPC server. */
  address: string;
  /**
   * A live product of this type with a fresh code; with `seenBy`, placed in a catalog with those
   * users groups on its entry (the users groups whose restricted users see it; docs/decisions/access.md).
   */
  newProduct(type?: 'simple' | 'kit' | 'service', seenBy?: string[]): Promise<ppb.Product>;
  /** A live attribute group with a fresh key. */
  newAttributeGroup(): Promise<apb.AttributeGroup>;
  /** The product as the catalog has it now (undefined once deleted). */
  product(id: string): Promise<ppb.Product | undefined>;
  /** Soft-deletes a product. */
  deleteProduct(id: string): Promise<void>;
  /** The product's live relation of one type, if any. */
  relation(productId: string, type: string): Promise<rpb.ProductRelation | undefined>;
  /** Starts the catalog process again on the same database and port (after it was killed). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

const ENV = { COMPLETENESS_WORKER: 'false' };

/** Starts the catalog on a fresh database (`label` names it). */
export async function startCatalogFixture(label: string): Promise<CatalogFixture> {
  const db = await createTestDatabase(label);
  let proc = await startAppProcess('catalog', db.url, ENV);
  const address = proc.address;
  const port = Number(address.split(':')[1]);
  const opts = { service: 'catalog', address, deadlineMs: 10_000 };
  const products = createRpcClient(ppb.ProductsServiceClient, opts);
  const groups = createRpcClient(apb.AttributeGroupsServiceClient, opts);
  const relations = createRpcClient(rpb.ProductRelationsServiceClient, opts);
  const catalogs = createRpcClient(tpb.CatalogsServiceClient, opts);
  let placed: Promise<string> | undefined;
  const catalogId = () =>
    (placed ??= catalogs
      .createCatalog({ input: tpb.CatalogInput.fromPartial({ code: `catalog_${label}`, name: { en: label } }) })
      .then((r) => r.data!.id));
  let n = 0;
  return {
    db,
    get process() {
      return proc;
    },
    address,
    async newProduct(type = 'simple', seenBy) {
      const i = ++n;
      const input = ppb.ProductInput.fromPartial({
        code: `SKU-${label}-${i}`,
        name: { en: `Product ${i}` },
        type,
        catalogs: seenBy ? [{ id: await catalogId(), user_groups: seenBy }] : [],
      });
      return (await products.createProduct({ input })).data!;
    },
    async newAttributeGroup() {
      const i = ++n;
      const input = apb.AttributeGroupInput.fromPartial({ key: `group_${i}`, name: { en: `Group ${i}` } });
      return (await groups.createAttributeGroup({ input })).data!;
    },
    async product(id) {
      return (await products.batchGetProducts({ ids: [id], codes: [] })).data[0];
    },
    async deleteProduct(id) {
      await products.deleteProduct({ id });
    },
    async relation(productId, type) {
      return (await relations.batchGetProductRelations({ ids: [], keys: [`${productId}:${type}`] })).data[0];
    },
    async restart() {
      proc = await startAppProcess('catalog', db.url, ENV, { port, migrate: false });
    },
    async close() {
      products.close();
      groups.close();
      relations.close();
      catalogs.close();
      await proc.stop();
      await db.drop();
    },
  };
}
