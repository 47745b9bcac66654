import { ValidationError } from '@pim/errors';
import { checkTargetUrl, type AddressPolicy } from '@pim/outbound';
import { declaredRecord } from '@pim/records';
import { Channel, type ChannelEndpoint } from '@pim/resources';
import { ChannelEntity } from '../entities/channel.entity';
import { keepMaskedHeaders, maskEndpoint } from './channel.endpoint';

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
 * stored as written and shown masked, a masked value written back keeping the stored one; the
 * endpoint URL checked against the address policy on every write (names are checked again, once
 * resolved, when a publication is sent).
 */
export const channelRecord = (policy: AddressPolicy) =>
  declaredRecord(Channel, {
    entity: ChannelEntity,
    handle: 'code',
    derived: (input, prev) => ({
      endpoint: keepMaskedHeaders(input.endpoint, (prev?.endpoint as ChannelEndpoint | undefined) ?? null),
    }),
    derivedView: (record) => ({ endpoint: maskEndpoint(record.endpoint as ChannelEndpoint) }),
    hooks: {
      beforeWrite: async (_m, next) => checkEndpoint(policy, next.endpoint as ChannelEndpoint),
    },
  });
