import { Entity, Index } from 'typeorm';
import { SearchableRecordEntity, declaredEntity } from '@pim/records';
import { Channel } from '@pim/resources';

/**
 * A channel: the declared fields (`Channel` in @pim/resources) and the common record columns. Its
 * endpoint is stored as written, header values in clear (they are the channel's credentials): the
 * view shows them masked (channel.resource.ts).
 */
@Entity({ name: 'channels' })
@Index('UQ_channels_code_live', ['code'], { unique: true, where: 'deleted = false' })
@Index('IDX_channels_created_at', ['created_at', '_id'])
export class ChannelEntity extends declaredEntity(Channel, SearchableRecordEntity) {}
