import type { AppDataSourceOptions } from '@pim/db';
import { DeadLetter, OutboxEvent } from '@pim/events';
import { ChannelEntity } from './entities/channel.entity';
import { AdvertisementEntity } from './entities/advertisement.entity';
import { PublicationEntity } from './entities/publication.entity';
import { PublicationBatchEntity } from './entities/publication-batch.entity';
import { migrations } from './migrations';

/** This app's schema. */
export const SCHEMA = 'publisher';

/** Persistence of the publisher app: its schema, entities and migrations. */
export function dataSourceOptions(url: string): AppDataSourceOptions {
  return {
    url,
    schema: SCHEMA,
    entities: [PublicationBatchEntity, ChannelEntity, PublicationEntity, AdvertisementEntity, OutboxEvent, DeadLetter],
    migrations,
    applicationName: 'pim-publisher',
  };
}
