import type { DataSource } from 'typeorm';
import { pagedSealedStore, type SealedStore } from '@pim/secrets';
import { channelsRepository } from '../repositories/channels.repository';

/**
 * The channels' credentials (their endpoint's header values) as a store the re-seal loop of
 * @pim/secrets passes over: each value sealed again with the current operator key when it is in
 * clear or under an older key, the endpoint written only if the channel still holds what was read.
 */
export function channelCredentialsStore(ds: DataSource): SealedStore {
  return pagedSealedStore({
    name: 'channels.endpoint.headers',
    page: (after, limit) => channelsRepository.endpointsPage(ds.manager, after, limit),
    values: (row) => (row.endpoint.headers ?? []).map((h) => h.value),
    write: (row, values) =>
      channelsRepository.replaceEndpoint(ds.manager, row, {
        ...row.endpoint,
        headers: (row.endpoint.headers ?? []).map((h, i) => ({ ...h, value: values[i]! })),
      }),
  });
}
