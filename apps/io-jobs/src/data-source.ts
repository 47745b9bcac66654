import type { AppDataSourceOptions } from '@pim/db';
import { DeadLetter, OutboxEvent } from '@pim/events';
import { ImportEntity } from './entities/import.entity';
import { ImportTemplateEntity } from './entities/import-template.entity';
import { ImportErrorEntity } from './entities/import-error.entity';
import { ExportEntity } from './entities/export.entity';
import { migrations } from './migrations';

/** This app's schema. */
export const SCHEMA = 'io_jobs';

/** Persistence of the io-jobs app: its schema, entities and migrations. */
export function dataSourceOptions(url: string): AppDataSourceOptions {
  return {
    url,
    schema: SCHEMA,
    entities: [ExportEntity, ImportTemplateEntity, ImportEntity, ImportErrorEntity, OutboxEvent, DeadLetter],
    migrations,
    applicationName: 'pim-io-jobs',
  };
}
