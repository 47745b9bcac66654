import type { AppDataSourceOptions } from '@pim/db';
import { DeadLetter, OutboxEvent } from '@pim/events';
import { WebhookEntity } from './webhook/webhook.entity';
import { InboxEvent } from './inbox/inbox.entity';
import { DeliveryAttemptEntity, DeliveryEntity } from './delivery/delivery.entity';
import { migrations } from './migrations';

/** This app's schema. */
export const SCHEMA = 'webhooks';

/** Persistence of the webhooks app: its schema, entities and migrations. */
export function dataSourceOptions(url: string): AppDataSourceOptions {
  return {
    url,
    schema: SCHEMA,
    entities: [WebhookEntity, OutboxEvent, DeadLetter, InboxEvent, DeliveryEntity, DeliveryAttemptEntity],
    migrations,
    applicationName: 'pim-webhooks',
  };
}
