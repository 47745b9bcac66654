import { Entity, Index } from 'typeorm';
import { SearchableRecordEntity, declaredEntity } from '@pim/records';
import { Channel } from '@pim/resources';

/**
 * A channel: the declared fields (`Channel` in @pim/resources) and the common record columns. Its
 * endpoint is stored as written but for the header values (the channel's credentials), each sealed
 * with the operator key (@pim/secrets: a JWE naming its key); the view shows them masked
 * (channel.resource.ts). A value in clear is one written before sealing existed: the re-seal pass seals it.
 */
@Entity({ name: 'channels' })
@Index('UQ_channels_code_live', ['code'], { unique: true, where: 'deleted = false' })
@Index('IDX_channels_created_at', ['created_at', '_id'])
export class ChannelEntity extends declaredEntity(Channel, SearchableRecordEntity) {}
