import { publisher as pb } from '@pim/contracts';
import { NotFoundError, withLinks } from '@pim/errors';
import type { Logger } from '@pim/logging';
import type { ChannelInput, ChannelView } from '@pim/resources';
import { unary, type ServiceRegistration } from '@pim/rpc';
import { mirrorCodec, recordHandlers, type RecordService } from '@pim/records';
import type { ChannelEntity } from '../entities/channel.entity';
import type { CatalogLink } from '../links/catalog.link';
import { readinessProblems } from './channel.readiness';

/** gRPC handlers of pim.publisher.v1.SalesChannelsService: the record calls and readiness. */
export function channelsGrpc(
  service: RecordService<ChannelEntity, ChannelView, ChannelInput>,
  catalog: CatalogLink,
  logger: Logger,
): ServiceRegistration {
  // The message carries the view's enums as strings and its endpoint and mapping as JSON.
  type Typed = 'kind' | 'endpoint' | 'mapping';
  const h = recordHandlers(
    service,
    mirrorCodec<ChannelView, Omit<pb.SalesChannel, Typed> & Pick<ChannelView, Typed>, pb.SalesChannelInput>(),
    logger,
    { one: 'SalesChannel', many: 'SalesChannels' },
    (req: pb.BatchGetSalesChannelsRequest) => req.codes ?? [],
  );
  const implementation: pb.SalesChannelsServiceServer = {
    createSalesChannel: h.create,
    getSalesChannel: h.get,
    updateSalesChannel: h.update,
    patchSalesChannel: h.patch,
    deleteSalesChannel: h.delete,
    listSalesChannels: h.list,
    batchGetSalesChannels: h.batchGet,
    getSalesChannelReadiness: unary(
      logger,
      'GetSalesChannelReadiness',
      async (req: pb.GetSalesChannelReadinessRequest) => {
        const channel = await service.get(req.id);
        const product = await catalog.product(req.product_id);
        if (!product)
          throw new NotFoundError(`No live product with _id '${req.product_id}'`, {
            ...withLinks((link) => `Use the _id of a live product from ${link({ collection: 'products' })}`),
            details: [{ field: 'product_id', message: `no live product has _id '${req.product_id}'` }],
          });
        const missing = readinessProblems(channel, product);
        return { ready: missing.length === 0, missing };
      },
    ),
  };
  return { name: 'pim.publisher.v1.SalesChannelsService', definition: pb.SalesChannelsServiceService, implementation };
}
