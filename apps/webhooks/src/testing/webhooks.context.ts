import type { DataSource } from 'typeorm';
import { createDataSource, migrate } from '@pim/db';
import { COLLECTIONS, type WebhookInput, type WebhookView } from '@pim/resources';
import { createTestDatabase, type TestDatabase } from '@pim/testing';
import { dataSourceOptions } from '../data-source';
import { WebhookService } from '../webhook/webhook.service';

/** A migrated database of this app's own, its service, and factories that return what they inserted. */
export interface WebhooksTestContext {
  db: TestDatabase;
  ds: DataSource;
  service: WebhookService;
  /** Inserts a webhook (on a collection no live webhook uses, unless one is given) and returns it with its secret. */
  newWebhook(overrides?: Partial<WebhookInput>): Promise<{ webhook: WebhookView; secret: string }>;
  /** Empties the tables between tests. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/** Builds the context for one test file. */
export async function webhooksTestContext(): Promise<WebhooksTestContext> {
  const db = await createTestDatabase('webhooks');
  await migrate(dataSourceOptions(db.url));
  const ds = createDataSource(dataSourceOptions(db.url));
  await ds.initialize();
  const service = new WebhookService(ds);
  const freeCollection = async (): Promise<string> => {
    const rows: { collection: string }[] = await ds.query('SELECT collection FROM webhooks.webhooks WHERE deleted = false');
    const used = new Set(rows.map((r) => r.collection));
    const free = COLLECTIONS.find((c) => !used.has(c.name));
    if (!free) throw new Error('every collection already has a webhook in this test');
    return free.name;
  };
  return {
    db,
    ds,
    service,
    async newWebhook(overrides = {}) {
      return service.create({ collection: overrides.collection ?? (await freeCollection()), url: 'https://receiver.example/hook', ...overrides });
    },
    async reset() {
      await ds.query('TRUNCATE webhooks.webhooks, webhooks.outbox');
    },
    async close() {
      await ds.destroy();
      await db.drop();
    },
  };
}
