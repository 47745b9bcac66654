import type { DataSource } from 'typeorm';
import type { AddressPolicy } from '@pim/outbound';
import type { Keyring } from '@pim/secrets';
import { RecordService, type RecordStore } from '@pim/records';
import { channelRecord } from './channel/channel.resource';
import type { CatalogLink } from './links/catalog.link';
import { PublicationMoves } from './publication/publication.moves';
import { publicationRecord } from './publication/publication.resource';
import { publicationBatchRecord } from './publication-batch/publication-batch.resource';
import { PublicationBatchesRepository } from './repositories/publication-batches.repository';
import { PublicationsRepository } from './repositories/publications.repository';

/** How the publisher app's records are stored: its events come from `publisher`. */
export const PUBLISHER_STORE: RecordStore = { source: 'publisher' };

/**
 * The publisher's record services and what they share, as the app and its tests build them;
 * `secrets` seals the channels' credentials.
 */
export function publisherRecords(ds: DataSource, catalog: CatalogLink, policy: AddressPolicy, secrets: Keyring) {
  // The resource reaches the repository only when a write runs, after both exist.
  const publications = new RecordService(
    ds,
    publicationRecord({ catalog, publications: (): PublicationsRepository => repository }),
    PUBLISHER_STORE,
  );
  // The repositories write publications and batches through their services.
  const repository: PublicationsRepository = new PublicationsRepository(ds, publications);
  const batches = new RecordService(
    ds,
    publicationBatchRecord((): PublicationBatchesRepository => batchesRepository, catalog),
    PUBLISHER_STORE,
  );
  const batchesRepository: PublicationBatchesRepository = new PublicationBatchesRepository(ds, batches);
  return {
    channels: new RecordService(ds, channelRecord(policy, secrets), PUBLISHER_STORE),
    batches,
    batchesRepository,
    publications,
    repository,
    moves: new PublicationMoves(publications, () => repository),
  };
}

/** The publisher's record services. */
export type PublisherRecords = ReturnType<typeof publisherRecords>;
