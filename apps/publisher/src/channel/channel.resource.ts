import { ValidationError } from '@pim/errors';
import { checkTargetUrl, type AddressPolicy } from '@pim/outbound';
import { declaredRecord } from '@pim/records';
import { Channel, type ChannelEndpoint } from '@pim/resources';
import type { Keyring } from '@pim/secrets';
import { ChannelEntity } from '../entities/channel.entity';
import { maskEndpoint, sealEndpoint } from './channel.endpoint';

/** Refuses an endpoint the publisher could not reach under the address policy (a private address the operator did not allow). */
function checkEndpoint(policy: AddressPolicy, endpoint: ChannelEndpoint): void {
  const verdict = checkTargetUrl(policy, endpoint.url);
  if (verdict.allowed) return;
  throw new ValidationError(`endpoint.url: ${verdict.reason}`, {
    title: 'Invalid channel',
    solution:
      'Point the channel at a public address, or ask the operator to allow the range (PUBLISHER_ALLOWED_TARGETS)',
    details: [{ field: 'endpoint.url', message: verdict.reason }],
  });
}

/**
 * Channels on the record engine: named by their code; the endpoint's header values (credentials)
 * stored sealed with the operator key (`secrets`) and shown masked, a masked value written back
 * keeping the stored one; the endpoint URL checked against the address policy on every write
 * (names are checked again, once resolved, when a publication is sent).
 */
export const channelRecord = (policy: AddressPolicy, secrets: Keyring) =>
  declaredRecord(Channel, {
    entity: ChannelEntity,
    handle: 'code',
    derived: (input, prev) => ({
      endpoint: sealEndpoint(input.endpoint, (prev?.endpoint as ChannelEndpoint | undefined) ?? null, secrets),
    }),
    derivedView: (record) => ({ endpoint: maskEndpoint(record.endpoint as ChannelEndpoint, secrets) }),
    hooks: {
      beforeWrite: async (_m, next) => checkEndpoint(policy, next.endpoint as ChannelEndpoint),
    },
  });
