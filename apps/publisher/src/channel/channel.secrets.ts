import type { DataSource } from 'typeorm';
import { ResealCounter, type SealedStore } from '@pim/secrets';
import { channelsRepository } from '../repositories/channels.repository';

const PAGE = 200;

/**
 * The channels' credentials (their endpoint's header values) as a store the re-seal loop of
 * @pim/secrets passes over: each value sealed again with the current operator key when it is in
 * clear or under an older key, the endpoint written only if the channel still holds what was read.
 */
export function channelCredentialsStore(ds: DataSource): SealedStore {
  return {
    name: 'channels.endpoint.headers',
    async reseal(keyring) {
      const counter = new ResealCounter(keyring);
      let after = '';
      for (;;) {
        const page = await channelsRepository.endpointsPage(ds.manager, after, PAGE);
        for (const row of page) {
          const headers = row.endpoint.headers ?? [];
          const stored = headers.map((h) => h.value);
          const { values, changed } = counter.reseal(row._id, stored);
          const endpoint = { ...row.endpoint, headers: headers.map((h, i) => ({ ...h, value: values[i]! })) };
          const written = changed ? await channelsRepository.replaceEndpoint(ds.manager, row, endpoint) : true;
          counter.done(stored, values, written);
        }
        if (page.length < PAGE) return counter.tally;
        after = page[page.length - 1]._id;
      }
    },
  };
}
