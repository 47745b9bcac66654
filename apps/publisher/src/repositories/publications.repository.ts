import type { DataSource, EntityManager } from 'typeorm';
import { In } from 'typeorm';
import { recordEvents } from '@pim/events';
import type { PublicationView } from '@pim/resources';
import { PublicationEntity } from '../entities/publication.entity';
import { track } from '../entities/publication.tracking';
import { advertisementsRepository } from './advertisements.repository';

/** The NOTIFY channel that wakes the senders of every replica when a publication becomes due. */
export const PUBLICATIONS_CHANNEL = 'pim_publisher_publications';

/** Statuses of a publication still to be sent. */
const WAITING = ['ready_to_publish', 'publishing'];

/** A publication's event: the action and the record, shown as the API shows it. */
export type PublicationEvent = { action: string; record: PublicationEntity };

/**
 * Queries over publications the record engine does not run: superseding older ones, the send
 * queue (claims under a lease, outcomes written only while the lease is held), and the outcomes
 * the catalog has still to record. Events are written in the same transactions.
 */
export class PublicationsRepository {
  constructor(
    private readonly ds: DataSource,
    /** The record as the API shows it (the record service's view). */
    private readonly view: (record: PublicationEntity) => PublicationView,
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

  /** Wakes the senders once the running transaction commits. */
  async notify(m: EntityManager): Promise<void> {
    await m.query(`SELECT pg_notify($1, '')`, [PUBLICATIONS_CHANNEL]);
  }

  /** Writes changed publications with their next version and their events. */
  async save(m: EntityManager, changes: PublicationEvent[]): Promise<void> {
    if (changes.length === 0) return;
    const now = new Date();
    for (const c of changes) {
      c.record.version += 1;
      c.record.updated_at = now;
    }
    // One statement for the whole set (their rows are locked by this transaction): every column as the records hold it.
    await m.upsert(PublicationEntity, changes.map((c) => c.record) as never, {
      conflictPaths: ['_id'],
      skipUpdateIfNoValuesChanged: false,
    });
    await recordEvents(
      m,
      changes.map((c) => ({
        source: 'publisher',
        collection: 'publications',
        action: c.action,
        data: this.view(c.record),
        actor: null,
      })),
    );
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
    const older = await m
      .createQueryBuilder(PublicationEntity, 'p')
      .where('p.advertisement_id IN (:...ads) AND p.deleted = false', { ads: [...newer.keys()] })
      .andWhere('p._id NOT IN (:...newer)', { newer: [...newer.values()] })
      .andWhere('p.status IN (:...waiting)', { waiting: WAITING })
      .andWhere('(p.lease_until IS NULL OR p.lease_until < now())')
      .orderBy('p._id', 'ASC')
      .setLock('pessimistic_write')
      .getMany();
    const now = new Date();
    for (const p of older) {
      const newerId = newer.get(p.advertisement_id)!;
      p.status = 'failed';
      p.next_attempt_at = null;
      p.lease_until = null;
      p.lease_token = null;
      p.outcome_at = now;
      track(p, 'FAILED', `Superseded by publication ${newerId}, which sends the product as it is now`, [
        `superseded_by=${newerId}`,
      ]);
    }
    await this.save(
      m,
      older.map((record) => ({ action: 'status_changed', record })),
    );
    return older;
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

  /** Inserts new publications (made whole by the caller) with their `created` events. */
  async insert(m: EntityManager, records: PublicationEntity[]): Promise<void> {
    if (records.length === 0) return;
    await m.insert(PublicationEntity, records as never);
    await recordEvents(
      m,
      records.map((record) => ({
        source: 'publisher',
        collection: 'publications',
        action: 'created',
        data: this.view(record),
        actor: null,
      })),
    );
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
   * it to publishing.
   */
  async claim(limit: number, leaseMs: number, token: string): Promise<PublicationEntity[]> {
    return this.ds.transaction(async (m) => {
      const due = await m
        .createQueryBuilder(PublicationEntity, 'p')
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
        .getMany();
      const until = new Date(Date.now() + leaseMs);
      const changes = due.map((p) => {
        const first = p.status === 'ready_to_publish';
        p.status = 'publishing';
        p.attempts += 1;
        p.lease_until = until;
        p.lease_token = token;
        track(p, 'IN_PROGRESS', `Sending to the channel '${p.channel_code}' (attempt ${p.attempts})`, [
          `attempt=${p.attempts}`,
        ]);
        return { action: first ? 'status_changed' : 'updated', record: p };
      });
      await this.save(m, changes);
      return due;
    });
  }

  /**
   * Writes outcomes of a sender's requests: each applies to its publication only while the sender's
   * lease still holds it (else another sender took it over, and its outcome counts). Answers the
   * publications written.
   */
  async complete(
    token: string,
    outcomes: Map<string, (record: PublicationEntity, m: EntityManager) => Promise<string>>,
  ): Promise<PublicationEntity[]> {
    if (outcomes.size === 0) return [];
    return this.ds.transaction(async (m) => {
      const held = await m.find(PublicationEntity, {
        where: { _id: In([...outcomes.keys()]), lease_token: token, deleted: false },
        lock: { mode: 'pessimistic_write' },
        order: { _id: 'ASC' },
      });
      const changes: PublicationEvent[] = [];
      for (const record of held) {
        const action = await outcomes.get(record._id)!(record, m);
        record.lease_until = null;
        record.lease_token = null;
        changes.push({ action, record });
      }
      await this.save(m, changes);
      // The advertisements remember what their channel accepted last (auto_republish compares with it).
      await advertisementsRepository.recordPublished(
        m,
        held
          .filter((p) => p.status === 'published')
          .map((p) => ({
            advertisementId: p.advertisement_id,
            publicationId: p._id,
            at: p.outcome_at!,
            hash: p.content_hash,
          })),
      );
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

  /** Notes that the catalog recorded these outcomes. */
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
