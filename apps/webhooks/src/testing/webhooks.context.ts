import type { DataSource } from 'typeorm';
import { createDataSource, migrate } from '@pim/db';
import { COLLECTIONS, type WebhookInput, type WebhookView } from '@pim/resources';
import { Keyring, parseSecretsKeys, newSecretsKey } from '@pim/secrets';
import { createTestDatabase, type TestDatabase } from '@pim/testing';
import { dataSourceOptions } from '../data-source';
import { WebhookService, type WebhookServiceOptions } from '../webhook/webhook.service';
import { DeliveryService } from '../delivery/delivery.service';
import { cancelPendingDeliveries } from '../delivery/deliveries.repository';

/** A migrated database of this app's own, its services, and factories that return what they inserted. */
export interface WebhooksTestContext {
  db: TestDatabase;
  ds: DataSource;
  /** The operator keys this test seals with (a fresh key of its own, `test-1`). */
  secrets: Keyring;
  service: WebhookService;
  deliveries: DeliveryService;
  /** Inserts a webhook (on a collection no live webhook uses, unless one is given) and returns it with its secret. */
  newWebhook(overrides?: Partial<WebhookInput>): Promise<{ webhook: WebhookView; secret: string }>;
  /** Empties the tables between tests. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/** Builds the context for one test file; `options` configure the webhook service (address policy...). */
export async function webhooksTestContext(options: Partial<WebhookServiceOptions> = {}): Promise<WebhooksTestContext> {
  const db = await createTestDatabase('webhooks');
  await migrate(dataSourceOptions(db.url));
  const ds = createDataSource(dataSourceOptions(db.url));
  await ds.initialize();
  const secrets = options.secrets ?? parseSecretsKeys(newSecretsKey('test-1'));
  const service = new WebhookService(ds, { onDelete: cancelPendingDeliveries, ...options, secrets });
  const deliveries = new DeliveryService(ds);
  const freeCollection = async (): Promise<string> => {
    const rows: { collection: string }[] = await ds.query(
      'SELECT collection FROM webhooks.webhooks WHERE deleted = false',
    );
    const used = new Set(rows.map((r) => r.collection));
    const free = COLLECTIONS.find((c) => !used.has(c.name));
    if (!free) throw new Error('every collection already has a webhook in this test');
    return free.name;
  };
  return {
    db,
    ds,
    secrets,
    service,
    deliveries,
    async newWebhook(overrides = {}) {
      return service.create({
        collection: overrides.collection ?? (await freeCollection()),
        url: 'https://receiver.example/hook',
        ...overrides,
      });
    },
    async reset() {
      await ds.query(
        'TRUNCATE webhooks.delivery_attempts, webhooks.deliveries, webhooks.inbox, webhooks.webhooks, webhooks.outbox',
      );
    },
    async close() {
      await ds.destroy();
      await db.drop();
    },
  };
}
