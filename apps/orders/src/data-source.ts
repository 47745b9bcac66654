import type { AppDataSourceOptions } from '@pim/db';
import { DeadLetter, OutboxEvent } from '@pim/events';
import { OrderEntity } from './entities/order.entity';
import { migrations } from './migrations';

/** This app's schema. */
export const SCHEMA = 'orders';

/** Persistence of the orders app: its schema, entities and migrations. */
export function dataSourceOptions(url: string): AppDataSourceOptions {
  return {
    url,
    schema: SCHEMA,
    entities: [OrderEntity, OutboxEvent, DeadLetter],
    migrations,
    applicationName: 'pim-orders',
  };
}
