import { In, type EntityManager } from 'typeorm';
import type { ChannelEndpoint } from '@pim/resources';
import { ChannelEntity } from '../entities/channel.entity';

/** A channel's stored endpoint, as the re-seal pass reads it. */
export interface StoredEndpoint {
  _id: string;
  endpoint: ChannelEndpoint;
}

/** Queries over channels the record engine does not run: the live channels a sender or a rule needs. */
export const channelsRepository = {
  /** The live channels among `ids`, endpoint credentials in clear. */
  live(m: EntityManager, ids: string[]): Promise<ChannelEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return m.find(ChannelEntity, { where: { _id: In([...new Set(ids)]), deleted: false } });
  },

  /** The stored endpoints of the channels after `afterId`, by id: every channel, deleted ones too (their credentials are still at rest). */
  endpointsPage(m: EntityManager, afterId: string, limit: number): Promise<StoredEndpoint[]> {
    return m.query(`SELECT "_id", endpoint FROM channels WHERE "_id" > $1 ORDER BY "_id" LIMIT $2`, [afterId, limit]);
  },

  /**
   * Stores a channel's endpoint with its credentials re-sealed if it still holds `before` (a write
   * meanwhile wins); whether it did. The same credentials, stored otherwise: no new version, no event.
   */
  async replaceEndpoint(m: EntityManager, before: StoredEndpoint, endpoint: ChannelEndpoint): Promise<boolean> {
    const rows: unknown[] = await m.query(
      `WITH u AS (
         UPDATE channels SET endpoint = $2::jsonb WHERE "_id" = $1 AND endpoint = $3::jsonb RETURNING 1)
       SELECT * FROM u`,
      [before._id, JSON.stringify(endpoint), JSON.stringify(before.endpoint)],
    );
    return rows.length > 0;
  },

  /** The live, enabled channels among `ids` that publish a changed product again. */
  republishing(m: EntityManager, ids: string[]): Promise<ChannelEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return m.find(ChannelEntity, {
      where: { _id: In([...new Set(ids)]), deleted: false, enabled: true, auto_republish: true },
    });
  },
};
