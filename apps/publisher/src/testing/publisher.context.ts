import type { DataSource } from 'typeorm';
import { attributes as apb, products as ppb, taxonomy as tpb } from '@pim/contracts';
import { createDataSource, migrate } from '@pim/db';
import { createLogger } from '@pim/logging';
import { AddressPolicy, createGuardedAgent, parseAllowList } from '@pim/outbound';
import type { ChannelInput, ChannelView, PublicationView } from '@pim/resources';
import { createRpcClient } from '@pim/rpc';
import { newSecretsKey, parseSecretsKeys, type Keyring } from '@pim/secrets';
import {
  createTestDatabase,
  startAppProcess,
  startReceiver,
  type AppProcess,
  type TestDatabase,
  type TestReceiver,
} from '@pim/testing';
import { dataSourceOptions } from '../data-source';
import { catalogLink, type CatalogLink } from '../links/catalog.link';
import { publisherRecords, type PublisherRecords } from '../publisher.records';
import { PublicationSender, type PublicationSenderOptions } from '../sender/publication.sender';
import { BatchRunner, type BatchRunnerOptions } from '../publication-batch/publication-batch.runner';

/** Channels on loopback are allowed in tests (the receiver runs there). */
export const loopbackPolicy = () =>
  new AddressPolicy(parseAllowList('127.0.0.0/8,::1/128'), {
    subject: 'channels',
    setting: 'PUBLISHER_ALLOWED_TARGETS',
  });

/**
 * What a publisher test works with: the publisher's migrated database and record services, a real
 * catalog process on its own database, a receiver standing for a channel, and factories that
 * return what they made.
 */
export interface PublisherTestContext extends PublisherRecords {
  db: TestDatabase;
  ds: DataSource;
  /** The operator keys this test seals channel credentials with (a fresh key of its own, `test-1`). */
  secrets: Keyring;
  catalogDb: TestDatabase;
  catalogProcess: AppProcess;
  catalog: CatalogLink;
  receiver: TestReceiver;
  /** A text attribute in the catalog (localizable when asked). */
  newAttribute(key: string, localizable?: boolean): Promise<void>;
  /**
   * A live simple product with a fresh code and these attribute values; with `seenBy`, placed in a
   * catalog with those users groups on its entry (the groups whose restricted users see it).
   */
  newProduct(attributes?: Record<string, unknown>, seenBy?: string[]): Promise<ppb.Product>;
  /** Writes a product's attributes (a catalog change: products.updated). */
  setAttributes(id: string, attributes: Record<string, unknown>): Promise<void>;
  /** The product as the catalog shows it now. */
  product(id: string): Promise<Record<string, unknown>>;
  /** A channel with a fresh code pointing at the receiver, with the given fields. */
  newChannel(overrides?: Partial<Record<keyof ChannelInput, unknown>>): Promise<ChannelView>;
  /** A sender over this database, sending through a loopback-allowing agent; stopped by close(). */
  startSender(overrides?: Partial<PublicationSenderOptions>, policy?: AddressPolicy): Promise<PublicationSender>;
  /** A batch runner over this database; stopped by reset() and close(). */
  startRunner(overrides?: Partial<BatchRunnerOptions>): Promise<BatchRunner>;
  /** Polls a publication until `done` holds (fails after timeoutMs with its last state). */
  waitFor(id: string, done: (p: PublicationView) => boolean, timeoutMs?: number): Promise<PublicationView>;
  /** The outbox's events, oldest first. */
  events(): Promise<{ type: string; data: Record<string, unknown> }[]>;
  /** Empties the publisher's tables between tests. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/** Builds the context for one test file (`label` names its databases); `secrets`: the operator keys (default: a fresh `test-1`). */
export async function publisherTestContext(label: string, secrets?: Keyring): Promise<PublisherTestContext> {
  const catalogDb = await createTestDatabase(`${label}-catalog`);
  const catalogProcess = await startAppProcess('catalog', catalogDb.url, { COMPLETENESS_WORKER: 'false' });
  const opts = { service: 'catalog', address: catalogProcess.address, deadlineMs: 10_000 };
  const products = createRpcClient(ppb.ProductsServiceClient, opts);
  const attributes = createRpcClient(apb.AttributesServiceClient, opts);
  const catalogs = createRpcClient(tpb.CatalogsServiceClient, opts);
  let placed: Promise<string> | undefined;
  const catalogId = () =>
    (placed ??= catalogs
      .createCatalog({ input: tpb.CatalogInput.fromPartial({ code: `catalog_${label}`, name: { en: label } }) })
      .then((r) => r.data!.id));
  const db = await createTestDatabase(label);
  await migrate(dataSourceOptions(db.url));
  const ds = createDataSource(dataSourceOptions(db.url));
  await ds.initialize();
  const catalog = catalogLink(catalogProcess.address);
  const policy = loopbackPolicy();
  const keys = secrets ?? parseSecretsKeys(newSecretsKey('test-1'));
  const records = publisherRecords(ds, catalog, policy, keys);
  const receiver = await startReceiver('/listings');
  const groups = createRpcClient(apb.AttributeGroupsServiceClient, opts);
  // Attributes apply to products through a group: every attribute and product of the context share one.
  const group = (
    await groups.createAttributeGroup({
      input: apb.AttributeGroupInput.fromPartial({ key: 'publishing', name: { en: 'Publishing' } }),
    })
  ).data!;
  const senders: { sender: { stop(): Promise<void> }; close: () => Promise<void> }[] = [];
  const logger = createLogger({ level: 'warn', service: `publisher-test-${label}` });
  let n = 0;
  const context: PublisherTestContext = {
    ...records,
    db,
    ds,
    secrets: keys,
    catalogDb,
    catalogProcess,
    catalog,
    receiver,
    async newAttribute(key, localizable = false) {
      const input = apb.AttributeInput.fromPartial({
        key,
        name: { en: key },
        groups: [{ id: group.id, required: false }],
        type: 'text',
        association: 'product',
        protected_by_lgpd: false,
        ...(localizable ? { type_config: { localizable: true } } : {}),
      });
      await attributes.createAttribute({ input });
    },
    async newProduct(values = {}, seenBy) {
      const i = ++n;
      const input = ppb.ProductInput.fromPartial({
        code: `SKU-${label}-${i}`,
        name: { en: `Product ${i}`, 'pt-BR': `Produto ${i}` },
        type: 'simple',
        attribute_groups: [group.id],
        attributes: values,
        catalogs: seenBy ? [{ id: await catalogId(), user_groups: seenBy }] : [],
      });
      return (await products.createProduct({ input })).data!;
    },
    async setAttributes(id, values) {
      await products.patchProduct({ id, patch: { attributes: values } });
    },
    async product(id) {
      return (await catalog.product(id))!;
    },
    newChannel: (overrides = {}) => {
      const i = ++n;
      return records.channels.create({
        code: `channel_${i}`,
        name: `Channel ${i}`,
        endpoint: { url: receiver.url, timeout_ms: 2_000 },
        ...overrides,
      });
    },
    async startSender(overrides = {}, senderPolicy = policy) {
      const agent = createGuardedAgent({ policy: senderPolicy });
      const sender = new PublicationSender({
        dataSource: ds,
        publications: records.repository,
        catalog,
        secrets: keys,
        agent,
        logger,
        concurrency: 16,
        leaseMs: 61_000,
        pollMs: 100,
        schedule: [200, 400],
        jitter: 0,
        stopGraceMs: 2_000,
        ...overrides,
      });
      await sender.start();
      senders.push({ sender, close: () => agent.close() });
      return sender;
    },
    async startRunner(overrides = {}) {
      const runner = new BatchRunner({
        dataSource: ds,
        batches: records.batchesRepository,
        publications: records.repository,
        catalog,
        logger,
        pollMs: 100,
        ...overrides,
      });
      await runner.start();
      senders.push({ sender: runner, close: async () => undefined });
      return runner;
    },
    async waitFor(id, done, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const p = await records.publications.get(id);
        if (done(p)) return p;
        if (Date.now() > until)
          throw new Error(`publication ${id} did not reach the expected state: ${JSON.stringify(p.tracking)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async events() {
      return ds.query(
        `SELECT envelope->>'type' AS type, envelope->'data' AS data FROM outbox ORDER BY occurred_at, id`,
      );
    },
    async reset() {
      for (const s of senders.splice(0)) {
        await s.sender.stop();
        await s.close();
      }
      await ds.query(`TRUNCATE publications, publication_batches, advertisements, channels, outbox`);
      receiver.requests.length = 0;
      receiver.answer(() => ({ status: 201, body: '{}' }));
    },
    async close() {
      await context.reset().catch(() => undefined);
      catalog.close();
      products.close();
      attributes.close();
      catalogs.close();
      groups.close();
      await receiver.close();
      await ds.destroy();
      await db.drop();
      await catalogProcess.stop();
      await catalogDb.drop();
    },
  };
  return context;
}
