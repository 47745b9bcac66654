import type { AppDataSourceOptions } from '@pim/db';
import { ApiKeyEntity } from './auth/api-key.entity';
import { IdempotencyRecord } from './idempotency/idempotency.entity';
import { migrations } from './migrations';

/** The gateway's schema: API keys, idempotency records, rate-limit counters. */
export const SCHEMA = 'gateway';

/** Persistence of the gateway. */
export function dataSourceOptions(url: string): AppDataSourceOptions {
  return {
    url,
    schema: SCHEMA,
    entities: [ApiKeyEntity, IdempotencyRecord],
    migrations,
    applicationName: 'pim-gateway',
    poolSize: 20,
  };
}
