import { In, type EntityManager } from 'typeorm';
import { ChannelEntity } from '../entities/channel.entity';

/** Queries over channels the record engine does not run: the live channels a sender or a rule needs. */
export const channelsRepository = {
  /** The live channels among `ids`, endpoint credentials in clear. */
  live(m: EntityManager, ids: string[]): Promise<ChannelEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return m.find(ChannelEntity, { where: { _id: In([...new Set(ids)]), deleted: false } });
  },

  /** The live, enabled channels among `ids` that publish a changed product again. */
  republishing(m: EntityManager, ids: string[]): Promise<ChannelEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return m.find(ChannelEntity, {
      where: { _id: In([...new Set(ids)]), deleted: false, enabled: true, auto_republish: true },
    });
  },
};
