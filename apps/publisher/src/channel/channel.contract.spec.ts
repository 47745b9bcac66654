import { PROTO_FILES } from '@pim/contracts';
import { Channel } from '@pim/resources';
import { contractProblems } from '@pim/testing';
import { ChannelEntity } from '../entities/channel.entity';

// Declared once (libs/resources); the table and the messages must agree in names, types and optionality.
describe('channels contract: declaration, entity and proto messages', () => {
  it('Channel agrees with ChannelEntity and pim.publisher.v1.SalesChannel / SalesChannelInput', () => {
    expect(
      contractProblems({
        declaration: Channel,
        entity: ChannelEntity,
        protoFile: PROTO_FILES.publisher,
        message: 'pim.publisher.v1.SalesChannel',
        inputMessage: 'pim.publisher.v1.SalesChannelInput',
      }),
    ).toEqual([]);
  });
});
