import { publisher as pb } from '@pim/contracts';
import type { Logger } from '@pim/logging';
import type { PublicationInput, PublicationView } from '@pim/resources';
import { unary, type ServiceRegistration } from '@pim/rpc';
import { mirrorCodec, recordHandlers, type RecordService } from '@pim/records';
import type { PublicationEntity } from '../entities/publication.entity';
import type { PublicationMoves } from './publication.moves';

/** gRPC handlers of pim.publisher.v1.PublicationsService: the record calls (no replace, no patch) and retry. */
export function publicationsGrpc(
  service: RecordService<PublicationEntity, PublicationView, PublicationInput>,
  moves: PublicationMoves,
  logger: Logger,
): ServiceRegistration {
  // The message carries the view's enums as strings and its tracking, snapshot and payload as JSON.
  type Typed = 'status' | 'origin' | 'tracking' | 'product_snapshot' | 'published_payload';
  const codec = mirrorCodec<
    PublicationView,
    Omit<pb.Publication, Typed> & Pick<PublicationView, Typed>,
    pb.PublicationInput
  >();
  const h = recordHandlers(service, codec, logger, { one: 'Publication', many: 'Publications' }, () => []);
  const implementation: pb.PublicationsServiceServer = {
    createPublication: h.create,
    getPublication: h.get,
    deletePublication: h.delete,
    listPublications: h.list,
    batchGetPublications: h.batchGet,
    retryPublication: unary(logger, 'RetryPublication', async (req: pb.RetryPublicationRequest) => ({
      data: codec.toMessage(await moves.retry(req.id, req.expected_version)),
    })),
  };
  return { name: 'pim.publisher.v1.PublicationsService', definition: pb.PublicationsServiceService, implementation };
}
