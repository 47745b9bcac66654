import type { DataSource, EntityManager } from 'typeorm';
import { In } from 'typeorm';
import { transactionRetryingDeadlocks } from '@pim/db';
import type { RecordService } from '@pim/records';
import type { PublicationInput, PublicationView } from '@pim/resources';
import { PublicationEntity } from '../entities/publication.entity';
import { track } from '../entities/publication.tracking';

/** The NOTIFY channel that wakes the senders of every replica when a publication becomes due. */
export const PUBLICATIONS_CHANNEL = 'pim_publisher_publications';

/** Statuses of a publication still to be sent. */
const WAITING = ['ready_to_publish', 'publishing'];

/** The publications' record service: every change of a publication goes through it. */
export type PublicationRecords = RecordService<PublicationEntity, PublicationView, PublicationInput>;

/** Whether a publication waits to be sent and no sender holds it (a live lease). */
const waitingFree = (p: PublicationEntity, now: Date) =>
  WAITING.includes(p.status) && (p.lease_until === null || p.lease_until < now);

/**
 * Queries over publications the record engine does not run: superseding older ones, the send
 * queue (claims under a lease, outcomes written only while the lease is held), and the outcomes
 * the catalog has still to record. Every change goes through the engine (`mutateMany`): versions,
 * views and events are its, one statement and one COPY of events for a set.
 */
export class PublicationsRepository {
  constructor(
    private readonly ds: DataSource,
    /** The publications' record service, which writes every change of theirs. */
    readonly publications: PublicationRecords,
  ) {}

  /**
   * The products of the live publications, distinct; with `about`, of those publications alone
   * (live or not): what a caller's sight of publications is worked out from.
   */
  async productIds(m: EntityManager, about?: readonly string[]): Promise<string[]> {
    const rows: { product_id: string }[] = about
      ? await m.query(`SELECT DISTINCT "product_id" FROM "publications" WHERE "_id" = ANY($1)`, [about])
      : await m.query(`SELECT DISTINCT "product_id" FROM "publications" WHERE "deleted" = false`);
    return rows.map((r) => r.product_id);
  }

  /**
   * The advertisements among these whose channel accepted a publication once (a published one
   * of the pair exists): read from the publications, so no outcome writes the advertisement.
   */
  async everPublished(m: EntityManager, advertisementIds: string[]): Promise<Set<string>> {
    if (advertisementIds.length === 0) return new Set();
    const rows: { advertisement_id: string }[] = await m.query(
      `SELECT DISTINCT "advertisement_id" FROM "publications" WHERE "advertisement_id" = ANY($1) AND "status" = 'published'`,
      [[...new Set(advertisementIds)]],
    );
    return new Set(rows.map((r) => r.advertisement_id));
  }

  /** The content fingerprint of the last publication each of these advertisements' channels accepted (those with one). */
  async lastPublishedHashes(m: EntityManager, advertisementIds: string[]): Promise<Map<string, string>> {
    if (advertisementIds.length === 0) return new Map();
    const rows: { advertisement_id: string; content_hash: string }[] = await m.query(
      `SELECT DISTINCT ON ("advertisement_id") "advertisement_id", "content_hash" FROM "publications"
        WHERE "advertisement_id" = ANY($1) AND "status" = 'published'
        ORDER BY "advertisement_id", "outcome_at" DESC`,
      [[...new Set(advertisementIds)]],
    );
    return new Map(rows.map((r) => [r.advertisement_id, r.content_hash]));
  }

  /** Wakes the senders once the running transaction commits. */
  async notify(m: EntityManager): Promise<void> {
    await m.query(`SELECT pg_notify($1, '')`, [PUBLICATIONS_CHANNEL]);
  }

  /**
   * Ends the older publications of an advertisement that are still waiting and not in flight: a
   * newer one will send the product as it is now. One being sent right now (a live lease) finishes,
   * and the newer one waits for it.
   */
  async supersede(m: EntityManager, advertisementId: string, newerId: string): Promise<PublicationEntity[]> {
    return this.supersedeAll(m, new Map([[advertisementId, newerId]]));
  }

  /** `supersede` for many advertisements at once: advertisement id → the newer publication's id. */
  async supersedeAll(m: EntityManager, newer: Map<string, string>): Promise<PublicationEntity[]> {
    if (newer.size === 0) return [];
    const older: { _id: string }[] = await m
      .createQueryBuilder(PublicationEntity, 'p')
      .select('p._id', '_id')
      .where('p.advertisement_id IN (:...ads) AND p.deleted = false', { ads: [...newer.keys()] })
      .andWhere('p._id NOT IN (:...newer)', { newer: [...newer.values()] })
      .andWhere('p.status IN (:...waiting)', { waiting: WAITING })
      .andWhere('(p.lease_until IS NULL OR p.lease_until < now())')
      .getRawMany();
    if (older.length === 0) return [];
    const now = new Date();
    // Under the row locks, each is checked again: a sender may have claimed it since the read.
    const written = await this.publications.inTransaction(m).mutateMany(ids(older), (p) => {
      const newerId = newer.get(p.advertisement_id);
      if (newerId === undefined || !waitingFree(p, now)) return false;
      Object.assign(p, {
        status: 'failed',
        next_attempt_at: null,
        lease_until: null,
        lease_token: null,
        outcome_at: now,
      });
      track(p, 'FAILED', `Superseded by publication ${newerId}, which sends the product as it is now`, [
        `superseded_by=${newerId}`,
      ]);
      return { event: 'status_changed' };
    });
    return changed(written);
  }

  /** What a publication carries: the fingerprint and the version of its product snapshot. */
  async contentOf(id: string): Promise<{ hash: string; version: number } | null> {
    const row: { hash: string; version: string | null } | undefined = await this.ds
      .createQueryBuilder(PublicationEntity, 'p')
      .select('p.content_hash', 'hash')
      .addSelect(`p.product_snapshot->>'version'`, 'version')
      .where('p._id = :id', { id })
      .getRawOne();
    return row ? { hash: row.hash, version: Number(row.version ?? 0) } : null;
  }

  /** Whether the advertisement has a publication newer than this one. */
  async hasNewer(m: EntityManager, advertisementId: string, id: string): Promise<boolean> {
    return (
      (await m
        .createQueryBuilder(PublicationEntity, 'p')
        .where('p.advertisement_id = :advertisementId AND p._id > :id AND p.deleted = false', { advertisementId, id })
        .getCount()) > 0
    );
  }

  /**
   * Claims up to `limit` due publications for one sender (any replica): waiting, due, not leased,
   * and the oldest waiting one of their advertisement (so a product's publications on a channel
   * reach it in order). Each gets a lease, an attempt and an IN_PROGRESS step; a first claim moves
   * it to publishing. One transaction: the due ids taken (`SKIP LOCKED`: concurrent senders claim
   * others), then one `mutateMany` writes them with their events.
   */
  async claim(limit: number, leaseMs: number, token: string): Promise<PublicationEntity[]> {
    return transactionRetryingDeadlocks(this.ds, async (m) => {
      const due: { _id: string }[] = await m
        .createQueryBuilder(PublicationEntity, 'p')
        .select('p._id', '_id')
        .where('p.deleted = false AND p.status IN (:...waiting) AND p.next_attempt_at <= now()', { waiting: WAITING })
        .andWhere('(p.lease_until IS NULL OR p.lease_until < now())')
        .andWhere(
          `NOT EXISTS (SELECT 1 FROM publications o WHERE o.advertisement_id = p.advertisement_id AND o._id < p._id
             AND o.deleted = false AND o.status IN ('ready_to_publish', 'publishing'))`,
        )
        .orderBy('p.next_attempt_at', 'ASC')
        .limit(limit)
        .setLock('pessimistic_write')
        .setOnLocked('skip_locked')
        .getRawMany();
      if (due.length === 0) return [];
      const until = new Date(Date.now() + leaseMs);
      const written = await this.publications.inTransaction(m).mutateMany(ids(due), (p) => {
        const first = p.status === 'ready_to_publish';
        p.status = 'publishing';
        p.attempts += 1;
        p.lease_until = until;
        p.lease_token = token;
        track(p, 'IN_PROGRESS', `Sending to the channel '${p.channel_code}' (attempt ${p.attempts})`, [
          `attempt=${p.attempts}`,
        ]);
        return { event: first ? 'status_changed' : 'updated' };
      });
      return changed(written);
    });
  }

  /**
   * Writes outcomes of a sender's requests: each applies to its publication only while the sender's
   * lease still holds it (else another sender took it over, and its outcome counts); `outcomes`
   * edits the record and answers its event. One transaction, one `mutateMany`. Answers the
   * publications written.
   */
  async complete(
    token: string,
    outcomes: Map<string, (record: PublicationEntity, m: EntityManager) => Promise<string>>,
  ): Promise<PublicationEntity[]> {
    if (outcomes.size === 0) return [];
    return transactionRetryingDeadlocks(this.ds, async (m) => {
      const written = await this.publications.inTransaction(m).mutateMany(
        [...outcomes.keys()].map((id) => ({ id })),
        async (record, tx) => {
          if (record.lease_token !== token) return false;
          const event = await outcomes.get(record._id)!(record, tx);
          record.lease_until = null;
          record.lease_token = null;
          return { event };
        },
      );
      const held = changed(written);
      if (held.some((p) => p.status === 'publishing')) await this.notify(m);
      return held;
    });
  }

  /** Ended publications whose outcome the catalog has not recorded yet, oldest first, ended before `before`. */
  syncDue(limit: number, before: Date): Promise<PublicationEntity[]> {
    return this.ds
      .createQueryBuilder(PublicationEntity, 'p')
      .where('p.product_sync_due AND p.outcome_at < :before', { before })
      .orderBy('p.outcome_at', 'ASC')
      .limit(limit)
      .getMany();
  }

  /**
   * Notes that the catalog recorded these outcomes (it did not answer when they were written):
   * bookkeeping of the sender's, which the API never shows, so neither a version nor an event.
   */
  async synced(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.ds
      .createQueryBuilder()
      .update(PublicationEntity)
      .set({ product_sync_due: false })
      .where({ _id: In(ids) })
      .execute();
  }

  /** When the next waiting publication comes due (a retry's time), or null when none waits for a time. */
  async nextDue(): Promise<Date | null> {
    const row: { at: Date | null } | undefined = await this.ds
      .createQueryBuilder(PublicationEntity, 'p')
      .select('min(p.next_attempt_at)', 'at')
      .where('p.deleted = false AND p.status IN (:...waiting)', { waiting: WAITING })
      .getRawOne();
    return row?.at ? new Date(row.at) : null;
  }
}

/** Rows read by id, as `mutateMany` items. */
const ids = (rows: { _id: string }[]) => rows.map((r) => ({ id: r._id }));

/** The records a `mutateMany` changed, in its items' order. */
function changed(outcomes: { status: string; record?: PublicationEntity }[]): PublicationEntity[] {
  return outcomes.flatMap((o) => (o.status === 'updated' && o.record ? [o.record] : []));
}
