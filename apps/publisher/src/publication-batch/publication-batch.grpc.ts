import { publisher as pb } from '@pim/contracts';
import type { Logger } from '@pim/logging';
import type { PublicationBatchInput, PublicationBatchView } from '@pim/resources';
import type { ServiceRegistration } from '@pim/rpc';
import { mirrorCodec, recordHandlers, type RecordService } from '@pim/records';
import type { PublicationBatchEntity } from '../entities/publication-batch.entity';

/** gRPC handlers of pim.publisher.v1.PublicationBatchesService: the record calls (no replace, no patch). */
export function publicationBatchesGrpc(
  service: RecordService<PublicationBatchEntity, PublicationBatchView, PublicationBatchInput>,
  logger: Logger,
): ServiceRegistration {
  // The message carries the view's enum as a string and its filters and refusals as JSON.
  type Typed = 'status' | 'filters' | 'refusals';
  const h = recordHandlers(
    service,
    mirrorCodec<
      PublicationBatchView,
      Omit<pb.PublicationBatch, Typed> & Pick<PublicationBatchView, Typed>,
      pb.PublicationBatchInput
    >(),
    logger,
    { one: 'PublicationBatch', many: 'PublicationBatches' },
    () => [],
  );
  const implementation: pb.PublicationBatchesServiceServer = {
    createPublicationBatch: h.create,
    getPublicationBatch: h.get,
    deletePublicationBatch: h.delete,
    listPublicationBatches: h.list,
    batchGetPublicationBatches: h.batchGet,
  };
  return {
    name: 'pim.publisher.v1.PublicationBatchesService',
    definition: pb.PublicationBatchesServiceService,
    implementation,
  };
}
