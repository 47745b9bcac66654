import { currentRunAs, traceContextOf } from '@pim/logging';
import { ValidationError, stateConflict } from '@pim/errors';
import { declaredRecord, requireLive, runAsOwnedAudience } from '@pim/records';
import { PublicationBatch, type ProductFilters } from '@pim/resources';
import type { CatalogLink } from '../links/catalog.link';
import { PublicationBatchEntity } from '../entities/publication-batch.entity';
import { channelsRepository } from '../repositories/channels.repository';
import type { PublicationBatchesRepository } from '../repositories/publication-batches.repository';

/**
 * Publication batches on the record engine: created pending for a live, enabled channel and
 * filters the product list takes from the creator (the catalog checks them as the creator: an
 * attribute hidden from them is a 403 now, not a failed run later) (a runner of any replica is woken at commit); moved only by the
 * runner. Identified by `_id`; never replaced or patched; one running is not deleted. A batch
 * runs as its creator (`run_as`): it publishes only the products their users groups see, and a
 * caller restricted by users groups sees only the batches they created (`runAsOwnedAudience`):
 * another's counts and refusals name products its creator saw.
 */
export const publicationBatchRecord = (batches: () => PublicationBatchesRepository, catalog: CatalogLink) =>
  declaredRecord(PublicationBatch, {
    entity: PublicationBatchEntity,
    handle: '_id',
    audience: runAsOwnedAudience(),
    hooks: {
      async beforeWrite(m, next, prev) {
        if (prev) return;
        await requireLive(m, { table: 'channels', collection: 'channels' }, [
          { field: 'channel_id', id: next.channel_id },
        ]);
        const [channel] = await channelsRepository.live(m, [next.channel_id]);
        if (!channel.enabled)
          throw new ValidationError(`The channel '${channel.code}' is disabled: nothing is published to it`, {
            title: 'Channel disabled',
            solution: 'Enable the channel (PATCH it with enabled: true), then publish again',
            details: [{ field: 'channel_id', message: `the channel '${channel.code}' is disabled` }],
          });
        await catalog.checkFilters((next.filters ?? {}) as ProductFilters);
        Object.assign(next, {
          status: 'pending',
          products_count: 0,
          publications_count: 0,
          refused_count: 0,
          refusals: [],
          run_as: currentRunAs(),
          // Each run of the batch continues the trace of the request that created it.
          trace_context: traceContextOf() ?? null,
        });
        await batches().notify(m);
      },
      async beforeDelete(_m, record) {
        if (record.status === 'processing' && record.lease_until !== null && record.lease_until > new Date())
          throw stateConflict('Publication batch', record, 'a batch being run is not deleted; wait until it ends', [
            'pending',
            'completed',
            'failed',
          ]);
      },
    },
  });
