import type { DataSource, EntityManager, SelectQueryBuilder } from 'typeorm';
import { In } from 'typeorm';
import {
  ConflictError,
  NotFoundError,
  type PimError,
  PreconditionFailedError,
  ValidationError,
  fromZodError,
  toPimError,
  withLinks,
} from '@pim/errors';
import { isId, newId, requireId } from '@pim/ids';
import { authorName, currentContext, inSpan } from '@pim/logging';
import { recordEvent, recordEvents, type RecordEventsInput } from '@pim/events';
import { isDeadlock, lockStrings, quoteIdent, translatePgError, uniqueValueTaken } from '@pim/db';
import {
  applyListQuery,
  validateListQuery,
  type ApplyListQueryOptions,
  type Filter,
  type ListQuery,
  type ResourceDecl,
} from '@pim/query';
import { collectionInfo, type CollectionInfo } from '@pim/resources';
import { isDeepStrictEqual } from 'node:util';
import { mergePatch } from './merge-patch';
import { idsWhere, insertRows, uniqueViolated, updateRows } from './record.rows';
import { SearchableRecordEntity, type RecordEntity } from './record.entity';
import {
  SEARCH_FIELD,
  storageDecl,
  type Audience,
  type Emit,
  type LockRequest,
  type NestedFilter,
  type RecordResource,
  type RecordView,
  type Scope,
} from './record.resource';

/** What a service needs to know of the app that owns its records. */
export interface RecordStore {
  /** The app whose events these are (the envelope's `source`). */
  source: string;
  /**
   * The IMMUTABLE unaccent wrapper the app's search indexes are built on (`catalog.immutable_unaccent`),
   * so `_search` matches the indexes' expression; Postgres's `unaccent` when absent.
   */
  unaccent?: string;
}

/** The generated column holding `search_text` folded, on tables that have one (products). */
export const SEARCH_FOLDED = 'search_folded';

/** Most ids and codes one BatchGet may ask for. */
export const BATCH_GET_MAX = 1_000;

/**
 * What a `mutate` change answers: false to leave the record as it was, else the event its write
 * records (`updated` by default), and events of the collection's own shape recorded just before it
 * (an order's `status_changed`, whose data is the move, not the record).
 */
export type Mutation = boolean | void | { event?: string; before?: { action: string; data: unknown }[] };

/** What a batch does to each of its items (`writeMany`). */
export type WriteManyKind = 'create' | 'update' | 'upsert' | 'delete';

/**
 * One item of a batch: `input` for a create or an upsert (by handle), `id` and `input` for an
 * update (the whole input; with `patch`, a JSON merge patch), `id` for a delete; `expectedVersion`
 * is the item's If-Match.
 */
export interface WriteManyItem {
  input?: unknown;
  id?: string;
  patch?: boolean;
  expectedVersion?: number;
}

/** How `writeMany` writes its batch. */
export interface WriteManyOptions<E> {
  /** A change that leaves every stored field as it was is `unchanged`: no new version, no event. */
  skipUnchanged?: boolean;
  /** Sets fields the owner computes on each new record (`index`: its item's), before the resource's rules run. */
  fill?: (record: E, index: number) => void;
}

/** What became of one item of a batch, by its index in the batch. */
export interface WriteManyOutcome<V, E> {
  index: number;
  status: 'created' | 'updated' | 'unchanged' | 'deleted' | 'failed';
  /** The record as the caller is shown it (absent when failed). */
  view?: V;
  /** The stored row (absent when failed). */
  record?: E;
  error?: PimError;
}

/** Thrown by a hook when what it locked no longer matches the record; the whole write runs again. */
export class RetryWrite extends Error {
  constructor(reason: string) {
    super(`write must be retried: ${reason}`);
  }
}

const ATTEMPTS = 3;

/** An item of a batch refused by a rule once its round's statements ran: the round runs again without it. */
class ItemRefused extends Error {
  constructor(
    readonly index: number,
    readonly error: PimError,
  ) {
    super(error.message);
  }
}

/** A copy of a query without its order and window: the conditions alone, for a count or an aggregate. */
function unwindowed<E extends RecordEntity>(qb: SelectQueryBuilder<E>): SelectQueryBuilder<E> {
  return qb.clone().orderBy().skip(undefined).take(undefined).offset(undefined).limit(undefined);
}

/** Throws the audience's refusal of a query naming these fields, if it has one. */
function refuseNamed(
  audience: Pick<Audience<RecordEntity, RecordView>, 'refuseNamed'> | undefined,
  fields: readonly string[],
): void {
  const refused = fields.length > 0 ? audience?.refuseNamed?.(fields) : undefined;
  if (refused) throw refused;
}

/** The list query of a filters-and-search query's first `limit` records by `_id` (a scan's batch). */
function keysetWindow(query: Pick<ListQuery, 'filters' | 'search'>, limit: number): ListQuery {
  const sort: ListQuery['sort'] = [{ field: '_id', direction: 'asc' }];
  return { page: 1, limit, skip: 0, sort, filters: query.filters ?? [], search: query.search, expand: [] };
}

/**
 * The domain service of one resource: create, get, replace, merge-patch, upsert, soft delete,
 * list and batch get. Every write is one transaction holding the record's row lock, the If-Match
 * check, the resource's rules and the `<collection>.<action>` event in the outbox. A nested
 * resource's service is used through `within(scope)`, which confines every call to one parent's records.
 */
export class RecordService<E extends RecordEntity, V extends RecordView, I> {
  private readonly decl: ResourceDecl;
  private readonly writable: string[];
  /** The collection's names: `label` in messages, `parent` for a nested one. */
  protected readonly info: CollectionInfo;

  constructor(
    protected readonly ds: DataSource,
    readonly resource: RecordResource<E, V, I>,
    protected readonly store: RecordStore,
    private readonly scope: Scope = {},
    /** The running transaction every call uses, for a service from `inTransaction`. */
    private readonly outer?: EntityManager,
  ) {
    this.info = collectionInfo(resource.collection);
    // `_search` runs over the stored search column when the entity has one, else over the searchable fields.
    const searchColumn = resource.entity.prototype instanceof SearchableRecordEntity;
    this.decl = searchColumn ? storageDecl(resource.listDecl, resource.listColumns) : resource.listDecl;
    this.writable = Object.keys(resource.schemas.input.shape);
  }

  /** The same service confined to the records of one parent (`{ attribute_id }`). */
  within(scope: Scope): RecordService<E, V, I> {
    return new RecordService(this.ds, this.resource, this.store, { ...this.scope, ...scope }, this.outer);
  }

  /**
   * The same service inside a transaction the caller runs, so writes of several records commit or
   * roll back together (a change request applied to a product and its relations at once). Its
   * writes neither open a transaction of their own nor retry: a deadlock or a retry a rule asks for
   * fails the caller's whole transaction, which the caller runs again.
   */
  inTransaction(m: EntityManager): RecordService<E, V, I> {
    return new RecordService(this.ds, this.resource, this.store, this.scope, m);
  }

  /** Where reads run: the caller's transaction, or any pooled connection. */
  private get manager(): EntityManager {
    return this.outer ?? this.ds.manager;
  }

  /** The record in words: `attribute option`. */
  protected get label(): string {
    return this.info.label;
  }

  /** The record as the API shows it: `_id`, its own fields, then version and dates. */
  toView(e: E): V {
    const view = {
      _id: e._id,
      ...this.resource.view(e),
      version: e.version,
      created_at: e.created_at.toISOString(),
      updated_at: e.updated_at.toISOString(),
      ...(e.created_by_name !== null ? { created_by_name: e.created_by_name } : {}),
    };
    return view as unknown as V;
  }

  /** The record's view; kept serialized on the record too when the resource keeps a rendering. */
  private render(record: E): V {
    const view = this.toView(record);
    if (this.resource.rendered) (record as { rendered?: string | null }).rendered = JSON.stringify(view);
    return view;
  }

  /** Creates a record; its handle must be free among live records (of its parent). */
  async create(raw: unknown): Promise<V> {
    const { view } = await this.createRecord(raw);
    return this.shownTo(view, await this.audience(this.manager, [view._id]));
  }

  /**
   * Creates a record and returns the stored row too (for columns the view never shows, such as a
   * secret). `id` gives the record an id chosen before (a file stored under it first); `fill` sets
   * fields the owner computes (an upload's file name and headers) before the resource's rules run.
   */
  async createRecord(
    raw: unknown,
    opts: { id?: string; fill?: (record: E) => void } = {},
  ): Promise<{ view: V; record: E }> {
    const input = this.parseInput(raw);
    return this.transaction('create', input as Record<string, unknown>, (m) => this.insert(m, input, opts));
  }

  /**
   * Creates the record whose handle the input names, or, when a live one has it, writes the fields
   * the input gives onto it (fields it omits keep their values). `expectedVersion` needs the record
   * to exist at that version. Two racing upserts of one handle: the loser's insert hits the unique
   * index and the whole write runs again as an update.
   */
  async upsert(raw: unknown, expectedVersion?: number): Promise<{ view: V; record: E; created: boolean }> {
    const given = this.parseInput(raw) as Record<string, unknown>;
    const handle = this.resource.handle;
    for (let attempt = 0; ; attempt++) {
      try {
        const upserted = await this.transaction('upsert', given, async (m) => {
          const current = await this.inSight(
            this.scoped(
              m
                .createQueryBuilder(this.resource.entity, 't')
                .where(`t.deleted = false AND t.${handle} = :handle`, { handle: given[handle] }),
            ),
            await this.audience(m),
          )
            .setLock('pessimistic_write')
            .getOne();
          if (!current) {
            if (expectedVersion !== undefined) {
              throw new PreconditionFailedError(`No ${this.label} has the ${handle} '${String(given[handle])}' yet`, {
                details: [{ field: 'If-Match', message: 'the record does not exist' }],
              });
            }
            return { ...(await this.insert(m, given as I)), created: true };
          }
          const written = await this.write(m, current._id, given, expectedVersion, (prev) =>
            this.parseInput({ ...this.writableView(prev), ...given }),
          );
          return { ...written, created: false };
        });
        return {
          ...upserted,
          view: this.shownTo(upserted.view, await this.audience(this.manager, [upserted.view._id])),
        };
      } catch (err) {
        // Inside a caller's transaction the failed insert has aborted it: the caller runs it again.
        if (attempt === 0 && err instanceof ConflictError && !this.outer) continue;
        throw err;
      }
    }
  }

  /** Inserts a new record from a validated input, with its event. */
  private async insert(
    m: EntityManager,
    input: I,
    opts: { id?: string; fill?: (record: E) => void } = {},
  ): Promise<{ view: V; record: E }> {
    {
      await this.resource.hooks?.lock?.(m, {
        kind: 'create',
        input: input as Record<string, unknown>,
        scope: this.scope,
      });
      const now = new Date();
      const record = m.create(this.resource.entity, {
        _id: opts.id ?? newId(),
        ...this.resource.columns(input, null),
        ...this.scope,
        version: 1,
        created_at: now,
        updated_at: now,
        created_by_name: authorName(),
        deleted: false,
        deleted_at: null,
        deleted_by: null,
      } as unknown as E);
      opts.fill?.(record);
      await this.resource.hooks?.beforeWrite?.(m, record, null, this.emitter(m));
      this.searchable(record);
      const view = this.render(record);
      await m.insert(this.resource.entity, record as never);
      await this.refuseOutOfSight(m, record);
      await this.emit(m, 'created', view);
      return { view, record };
    }
  }

  /** One live record. */
  async get(id: string): Promise<V> {
    this.checkId(id);
    const audience = await this.audience(this.manager, [id]);
    const record = await this.live(this.manager, id, audience).getOne();
    if (!record) throw this.notFound(id);
    return this.shownTo(this.toView(record), audience);
  }

  /**
   * One live record as the API shows it, serialized: the stored rendering when the resource keeps
   * one (a single text column read, nothing decoded), else rendered now.
   */
  async getJson(id: string): Promise<{ id: string; version: number; json: string }> {
    this.checkId(id);
    // A restricted caller reads through `get`: the condition and what they are shown apply.
    if (this.resource.rendered && (await this.audience(this.manager, [id])) === undefined) {
      const scope = Object.entries(this.scope);
      const rows: { version: number; rendered: string | null }[] = await this.manager.query(
        `SELECT "version", "rendered" FROM ${quoteIdent(this.tableName())} WHERE "_id" = $1 AND "deleted" = false${scope.map(([column], i) => ` AND ${quoteIdent(column)} = $${i + 2}`).join('')}`,
        [id, ...scope.map(([, value]) => value)],
      );
      if (rows.length === 0) throw this.notFound(id);
      if (rows[0].rendered !== null) return { id, version: rows[0].version, json: rows[0].rendered };
    }
    const view = await this.get(id);
    return { id: view._id, version: view.version, json: JSON.stringify(view) };
  }

  /** Replaces every writable field; omitted optional fields return to their defaults. */
  async replace(id: string, raw: unknown, expectedVersion?: number): Promise<V> {
    this.checkId(id);
    const input = this.parseInput(raw);
    return this.update(id, input as Record<string, unknown>, expectedVersion, () => input);
  }

  /** Applies a JSON merge patch (RFC 7396) to the writable fields; the result must be a valid input. */
  async patch(id: string, raw: unknown, expectedVersion?: number): Promise<V> {
    this.checkId(id);
    const patch = this.parsePatch(raw);
    return this.update(id, patch, expectedVersion, (current) =>
      this.parseInput(mergePatch(this.writableView(current), patch)),
    );
  }

  /**
   * A write that is not a caller's input (a secret rotated, a state moved, a record disabled by
   * the system): under the record's row lock and If-Match, `change` edits the row and returns
   * false to leave it as it was; a change is stored with a new version and an `updated` event, or
   * the collection's own event when `change` names one (`{ event: 'approved' }`).
   */
  async mutate(
    id: string,
    expectedVersion: number | undefined,
    change: (record: E, m: EntityManager) => Mutation | Promise<Mutation>,
  ): Promise<{ view: V; record: E; changed: boolean }> {
    this.checkId(id);
    return this.transaction('mutate', null, async (m) => {
      const record = await this.lockRecord(m, { kind: 'update', id, given: {}, scope: this.scope }, expectedVersion);
      const outcome = await change(record, m);
      if (outcome === false) return { view: this.toView(record), record, changed: false };
      const event = (typeof outcome === 'object' ? outcome.event : undefined) ?? 'updated';
      for (const e of (typeof outcome === 'object' ? outcome.before : undefined) ?? [])
        await this.emit(m, e.action, e.data as V);
      return { ...(await this.saveChange(m, record, event)), changed: true };
    });
  }

  /**
   * `mutate` for many records at once, set-based: the records locked in `_id` order (the
   * resource's early locks first: its `lockMany` once for them all, else its `lock` for each in
   * the same order), `change` run on each (false leaves it as it was: `unchanged`; a refusal
   * fails that item alone), then every changed record one UPDATE with its next version and its
   * rendering, and the events — each change's `before` ones, then its own (`updated`, or the one
   * it names) — one COPY into the outbox in the items' order; one transaction (the caller's, from
   * `inTransaction`). An id out of the caller's sight, or of no live record, is that item's 404;
   * an If-Match that does not hold, its 412.
   */
  async mutateMany(
    items: readonly { id: string; expectedVersion?: number }[],
    change: (record: E, m: EntityManager) => Mutation | Promise<Mutation>,
  ): Promise<WriteManyOutcome<V, E>[]> {
    return inSpan(
      `${this.resource.collection}.mutateMany`,
      { attributes: { 'pim.collection': this.resource.collection, 'pim.batch.size': items.length } },
      () =>
        this.batchTransaction(async (m) => {
          const outcomes: WriteManyOutcome<V, E>[] = new Array(items.length);
          const valid = items.flatMap((item, index) => {
            try {
              this.checkId(item.id);
              return [{ ...item, index }];
            } catch (err) {
              outcomes[index] = { index, status: 'failed', error: this.itemError(err) };
              return [];
            }
          });
          const ids = [...new Set(valid.map((v) => v.id))].sort();
          const requests = ids.map((id): LockRequest => ({ kind: 'update', id, given: {}, scope: this.scope }));
          const hooks = this.resource.hooks;
          if (hooks?.lockMany) {
            if (requests.length > 0) await hooks.lockMany(m, requests);
          } else for (const request of requests) await hooks?.lock?.(m, request);
          const rows = await this.lockLiveRows(m, ids);
          const seen = await this.idsInSight(
            m,
            rows.map((r) => r._id),
          );
          const records = new Map(rows.filter((r) => seen.has(r._id)).map((r) => [r._id, r]));
          const changed = new Map<string, { record: E; event: string }>();
          const before = new Map<number, { action: string; data: unknown }[]>();
          for (const item of valid) {
            const record = records.get(item.id);
            try {
              if (!record) throw this.notFound(item.id);
              if (item.expectedVersion !== undefined && item.expectedVersion !== record.version)
                throw new PreconditionFailedError(
                  `The ${this.label} is at version ${record.version}, not ${item.expectedVersion}`,
                  { details: [{ field: 'If-Match', message: `current version is ${record.version}` }] },
                );
              const outcome = await change(record, m);
              if (outcome === false) {
                outcomes[item.index] = { index: item.index, status: 'unchanged', view: this.toView(record), record };
                continue;
              }
              const own = typeof outcome === 'object' ? outcome : {};
              if (own.before) before.set(item.index, own.before);
              changed.set(item.id, { record, event: own.event ?? changed.get(item.id)?.event ?? 'updated' });
              outcomes[item.index] = { index: item.index, status: 'updated', record };
            } catch (err) {
              if (err instanceof RetryWrite) throw err;
              outcomes[item.index] = { index: item.index, status: 'failed', error: this.itemError(err) };
            }
          }
          const now = new Date();
          const views = new Map<string, V>();
          for (const { record } of changed.values()) {
            record.version += 1;
            record.updated_at = now;
            views.set(record._id, this.render(record));
          }
          await updateRows(
            m,
            m.connection.getMetadata(this.resource.entity),
            [...changed.values()].map((c) => c.record),
          );
          for (const o of outcomes) if (o?.status === 'updated') o.view = views.get(o.record!._id);
          // Events in the items' order: a record's own event once, after the `before` events of its changes.
          const last = new Map<string, number>();
          valid.forEach((v) => outcomes[v.index]?.status === 'updated' && last.set(v.id, v.index));
          await recordEvents(
            m,
            valid.flatMap((v) => [
              ...(before.get(v.index) ?? []).map((b) => this.eventOf(b.action, b.data)),
              ...(last.get(v.id) === v.index
                ? [this.eventOf(changed.get(v.id)!.event, views.get(v.id), changed.get(v.id)!.record)]
                : []),
            ]),
          );
          const audience = await this.audience(m, [...changed.keys()]);
          return outcomes.map((o) => (o.view ? { ...o, view: this.shownTo(o.view, audience) } : o));
        }),
    );
  }

  /**
   * Writes a batch set-based: each item parsed and derived, its rules run (`lock`, `beforeWrite`,
   * `afterWrite`, `beforeDelete`, `afterDelete`) and its sight checked as a single write would, then
   * every insert of a round one COPY, every update one statement, and its events one COPY into the
   * outbox — every round in one transaction, so a crash leaves nothing of the batch. An item's
   * problem (its input, its If-Match, a rule's refusal, a record out of sight) fails that item
   * alone with its error object; the outcomes come back in the items' order. Records are locked in
   * `_id` order (hook locks in handle order before them), so concurrent batches never deadlock;
   * items naming one handle (or id) go in successive rounds, each on what the one before wrote. A
   * refusal by a rule that runs after the statements (afterWrite, afterDelete) runs the batch again
   * without that item. A change that
   * leaves every stored field as it was is `unchanged` (no new version, no event) when
   * `skipUnchanged` is set. `fill` sets, on each new record, fields the owner computes (as
   * `createRecord`'s does: a snapshot, a batch's id) before the resource's rules run.
   */
  async writeMany(
    kind: WriteManyKind,
    items: readonly WriteManyItem[],
    opts: WriteManyOptions<E> = {},
  ): Promise<WriteManyOutcome<V, E>[]> {
    return inSpan(
      `${this.resource.collection}.writeMany`,
      {
        attributes: {
          'pim.collection': this.resource.collection,
          'pim.record.operation': kind,
          'pim.batch.size': items.length,
        },
      },
      async () => {
        const outcomes: WriteManyOutcome<V, E>[] = new Array(items.length);
        // Items naming the same record go in rounds: the n-th of each in round n.
        const rounds: number[][] = [];
        const seen = new Map<string, number>();
        items.forEach((item, index) => {
          const key = this.itemKey(kind, item, index);
          const n = seen.get(key) ?? 0;
          seen.set(key, n + 1);
          (rounds[n] ??= []).push(index);
        });
        // Items a rule refused after the statements ran (afterWrite, afterDelete): the batch runs again without them.
        const refused = new Map<number, PimError>();
        for (;;) {
          try {
            const done = await this.batchTransaction(async (m) => {
              const all: WriteManyOutcome<V, E>[] = [];
              for (const round of rounds)
                all.push(
                  ...(await this.writeRound(
                    m,
                    kind,
                    items,
                    round.filter((i) => !refused.has(i)),
                    opts,
                  )),
                );
              return all;
            });
            for (const o of done) outcomes[o.index] = o;
            break;
          } catch (err) {
            if (!(err instanceof ItemRefused)) throw err;
            // The caller's transaction holds the batch's writes: it fails whole, and the caller runs it again.
            if (this.outer) throw err.error;
            refused.set(err.index, err.error);
          }
        }
        for (const [index, error] of refused) outcomes[index] = { index, status: 'failed', error };
        const audience = outcomes.some((o) => o.view)
          ? await this.audience(
              this.manager,
              outcomes.flatMap((o) => (o.view ? [o.view._id] : [])),
            )
          : undefined;
        return outcomes.map((o) => (o.view ? { ...o, view: this.shownTo(o.view, audience) } : o));
      },
    );
  }

  /** What names an item's record within a batch: its id, or its handle for a create or an upsert. */
  private itemKey(kind: WriteManyKind, item: WriteManyItem, index: number): string {
    if (kind === 'update' || kind === 'delete') return typeof item.id === 'string' ? `id:${item.id}` : `item:${index}`;
    const handle = (item.input as Record<string, unknown> | null | undefined)?.[this.resource.handle];
    return typeof handle === 'string' ? `handle:${this.handleForm(handle)}` : `item:${index}`;
  }

  /** The live records (of the scope) with these ids, row-locked in `_id` order (so batches never deadlock), whoever may see them. */
  private async lockLiveRows(m: EntityManager, ids: string[]): Promise<E[]> {
    if (ids.length === 0) return [];
    return this.scoped(
      m.createQueryBuilder(this.resource.entity, 't').where('t.deleted = false AND t._id = ANY(:ids)', { ids }),
    )
      .orderBy('t._id', 'ASC')
      .setLock('pessimistic_write')
      .getMany();
  }

  /** A batch's transaction, again on a deadlock or when a rule asks for it (the whole round runs again). */
  private async batchTransaction<T>(work: (m: EntityManager) => Promise<T>): Promise<T> {
    if (this.outer) return work(this.outer);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.ds.transaction(work);
      } catch (err) {
        if ((err instanceof RetryWrite || isDeadlock(err)) && attempt < ATTEMPTS) continue;
        throw this.translate(err, undefined);
      }
    }
  }

  /** One round of a batch: items naming distinct records. */
  private async writeRound(
    m: EntityManager,
    kind: WriteManyKind,
    items: readonly WriteManyItem[],
    round: number[],
    opts: WriteManyOptions<E>,
  ): Promise<WriteManyOutcome<V, E>[]> {
    const out: WriteManyOutcome<V, E>[] = [];
    const fail = (index: number, err: unknown) => {
      const error = this.itemError(err);
      out.push({ index, status: 'failed', error });
    };
    // 1. Inputs parsed, ids checked.
    type Pending = { index: number; input?: Record<string, unknown>; id?: string; expectedVersion?: number };
    const pending: Pending[] = [];
    for (const index of round) {
      const item = items[index];
      try {
        if (kind !== 'create' && kind !== 'upsert') this.checkId(item.id as string);
        const input =
          kind === 'delete'
            ? undefined
            : kind === 'update' && item.patch
              ? this.parsePatch(item.input)
              : (this.parseInput(item.input) as Record<string, unknown>);
        pending.push({ index, input, id: item.id, expectedVersion: item.expectedVersion });
      } catch (err) {
        fail(index, err);
      }
    }
    if (pending.length === 0) return out;
    const handle = this.resource.handle;
    // 2. Which live records the items name by handle (a create's taken handle is its 409, as for a single create).
    if (kind === 'upsert' || kind === 'create') {
      // Batches naming the same handles take turns (in handle order), so each reads the others'
      // inserts instead of racing them into the unique index and running again.
      // (A resource named by its `_id` has no handle in its inputs: nothing to take turns on.)
      const handles = pending.flatMap((p) =>
        typeof p.input![handle] === 'string' ? [p.input![handle] as string] : [],
      );
      await lockStrings(m, `records:${this.tableName()}.${handle}`, handles);
      const idOf = await this.idsByHandle(
        m,
        pending.map((p) => p.input![handle]),
      );
      for (const p of pending) p.id = idOf.get(String(p.input![handle]));
      for (const p of pending.filter((p) => kind === 'create' && p.id !== undefined))
        fail(p.index, this.handleTaken(p.input![handle]));
      if (kind === 'create') pending.splice(0, pending.length, ...pending.filter((p) => p.id === undefined));
    }
    // 3. The rules' own locks, in handle (or id) order, then the records' row locks in _id order.
    const ordered = [...pending].sort((a, b) =>
      String(a.id ?? a.input?.[handle]).localeCompare(String(b.id ?? b.input?.[handle])),
    );
    const lockRefused = new Set<number>();
    for (const p of ordered) {
      const request: LockRequest =
        p.id === undefined
          ? { kind: 'create', input: p.input!, scope: this.scope }
          : kind === 'delete'
            ? { kind: 'delete', id: p.id, scope: this.scope }
            : { kind: 'update', id: p.id, given: p.input!, scope: this.scope };
      try {
        await this.resource.hooks?.lock?.(m, request);
      } catch (err) {
        if (err instanceof RetryWrite) throw err;
        fail(p.index, err);
        lockRefused.add(p.index);
      }
    }
    if (lockRefused.size > 0) pending.splice(0, pending.length, ...pending.filter((p) => !lockRefused.has(p.index)));
    const ids = pending.flatMap((p) => (p.id === undefined ? [] : [p.id]));
    const rows = await this.lockLiveRows(m, ids);
    // An upsert's record deleted or renamed between the read and the lock: the round runs again.
    const lockedAll = new Map(rows.map((r) => [r._id, r]));
    if (
      kind === 'upsert' &&
      pending.some((p) => p.id !== undefined && lockedAll.get(p.id)?.[handle as keyof E] !== p.input![handle])
    )
      throw new RetryWrite('a record changed its handle during the batch');
    // Those the caller may see: another's record is a 404 by id, and its handle is taken for an upsert.
    const inSight = await this.idsInSight(m, ids);
    const locked = new Map(rows.filter((r) => inSight.has(r._id)).map((r) => [r._id, r]));
    for (const p of pending.filter((p) => kind === 'upsert' && p.id !== undefined && !locked.has(p.id)))
      fail(p.index, this.handleTaken(p.input![handle]));
    if (kind === 'upsert')
      pending.splice(0, pending.length, ...pending.filter((p) => p.id === undefined || locked.has(p.id)));
    // 4. Each item's next state and its rules.
    const now = new Date();
    const author = authorName();
    const meta = m.connection.getMetadata(this.resource.entity);
    type Next = { index: number; next: E; prev: E | null };
    const writes: Next[] = [];
    for (const p of pending) {
      try {
        const prev = p.id === undefined ? null : (locked.get(p.id) ?? null);
        if (p.id !== undefined && !prev) throw this.notFound(p.id);
        if (kind === 'upsert' && !prev && p.expectedVersion !== undefined)
          throw new PreconditionFailedError(`No ${this.label} has the ${handle} '${String(p.input![handle])}' yet`, {
            details: [{ field: 'If-Match', message: 'the record does not exist' }],
          });
        if (prev && p.expectedVersion !== undefined && p.expectedVersion !== prev.version)
          throw new PreconditionFailedError(
            `The ${this.label} is at version ${prev.version}, not ${p.expectedVersion}`,
            {
              details: [{ field: 'If-Match', message: `current version is ${prev.version}` }],
            },
          );
        if (kind === 'delete') {
          await this.resource.hooks?.beforeDelete?.(m, prev!);
          const next = Object.assign(new this.resource.entity(), prev, {
            deleted: true,
            deleted_at: now,
            deleted_by: author,
          });
          if (this.resource.rendered) (next as { rendered?: string | null }).rendered = null;
          writes.push({ index: p.index, next, prev });
          continue;
        }
        if (!prev) {
          const next = m.create(this.resource.entity, {
            _id: newId(),
            ...this.resource.columns(p.input as I, null),
            ...this.scope,
            version: 0,
            created_at: now,
            updated_at: now,
            created_by_name: author,
            deleted: false,
            deleted_at: null,
            deleted_by: null,
          } as unknown as E);
          opts.fill?.(next, p.index);
          await this.resource.hooks?.beforeWrite?.(m, next, null, this.emitter(m));
          this.searchable(next);
          writes.push({ index: p.index, next, prev: null });
          continue;
        }
        const input =
          kind === 'upsert'
            ? this.parseInput({ ...this.writableView(prev), ...p.input })
            : kind === 'update' && items[p.index].patch
              ? this.parseInput(mergePatch(this.writableView(prev), p.input!))
              : (p.input as I);
        const next: E = Object.assign(new this.resource.entity(), prev, this.resource.columns(input, prev));
        await this.resource.hooks?.beforeWrite?.(m, next, prev, this.emitter(m));
        this.searchable(next);
        // A column left undefined keeps its stored value, as a single write's save does.
        for (const c of meta.columns)
          if (c.getEntityValue(next) === undefined) c.setEntityValue(next, c.getEntityValue(prev));
        if (opts.skipUnchanged && this.sameStored(next, prev)) {
          out.push({ index: p.index, status: 'unchanged', view: this.toView(prev), record: prev });
          continue;
        }
        writes.push({ index: p.index, next, prev });
      } catch (err) {
        if (err instanceof RetryWrite) throw err;
        fail(p.index, err);
      }
    }
    // A rename onto a handle another live record holds, or another item of the round takes, is that
    // item's 409 (a single write's from the unique index), before the statement could fail them all.
    const renamed = writes.filter((w) => w.prev && w.next[handle as keyof E] !== w.prev[handle as keyof E]);
    if (renamed.length > 0) {
      const holders = await this.idsByHandle(
        m,
        renamed.map((w) => w.next[handle as keyof E]),
      );
      const claimed = new Set<string>();
      const taken = new Set<number>();
      for (const w of renamed) {
        const wanted = String(w.next[handle as keyof E]);
        const holder = holders.get(wanted);
        if ((holder !== undefined && holder !== w.next._id) || claimed.has(wanted)) {
          fail(w.index, this.handleTaken(wanted));
          taken.add(w.index);
        } else claimed.add(wanted);
      }
      writes.splice(0, writes.length, ...writes.filter((w) => !taken.has(w.index)));
    }
    // 5. Sight: a record the caller could no longer see after its write is refused before anything is written.
    const audience = await this.audience(
      m,
      writes.map((w) => w.next._id),
    );
    if (audience?.where && kind !== 'delete') {
      const seen = await idsWhere(
        m,
        meta,
        writes.map((w) => w.next),
        audience.where,
      );
      for (const w of writes.filter((w) => !seen.has(w.next._id))) fail(w.index, this.outOfSight(audience, w.next));
      writes.splice(0, writes.length, ...writes.filter((w) => seen.has(w.next._id)));
    }
    // 6. Versions, views, then one statement per kind of write.
    const views = new Map<number, V>();
    for (const w of writes) {
      w.next.version += 1;
      if (w.prev) w.next.updated_at = now;
      views.set(w.index, kind === 'delete' ? this.toView(w.next) : this.render(w.next));
    }
    const inserts = writes.filter((w) => !w.prev);
    try {
      await insertRows(
        m,
        meta,
        inserts.map((w) => w.next),
      );
    } catch (err) {
      // A handle another writer took since the read: the round runs again, as an update of it.
      // Another unique index broken is the whole call's 409 (the statement cannot tell which row).
      if (uniqueViolated(err) === `UQ_${meta.tableName}_${handle}_live`)
        throw new RetryWrite('a handle was taken during the batch');
      throw err;
    }
    try {
      await updateRows(
        m,
        meta,
        writes.filter((w) => w.prev).map((w) => w.next),
      );
    } catch (err) {
      // A handle another writer took since the check above: the round runs again, and the check sees it.
      if (uniqueViolated(err) === `UQ_${meta.tableName}_${handle}_live`)
        throw new RetryWrite('a handle was taken during the batch');
      throw err;
    }
    // 7. What follows each write, then the batch's events in the items' order.
    for (const w of writes) {
      try {
        if (kind === 'delete') await this.resource.hooks?.afterDelete?.(m, w.next);
        else if (w.prev) await this.resource.hooks?.afterWrite?.(m, w.next, w.prev, this.emitter(m));
      } catch (err) {
        // A refusal fails its item alone: the round runs again without it (ItemRefused in writeMany).
        if (err instanceof RetryWrite) throw err;
        throw new ItemRefused(w.index, this.itemError(err));
      }
    }
    const byIndex = [...writes].sort((a, b) => a.index - b.index);
    await recordEvents(
      m,
      byIndex.map((w) =>
        kind === 'delete'
          ? this.eventOf('deleted', this.deletedData(views.get(w.index)!, w.next))
          : this.eventOf(w.prev ? 'updated' : 'created', views.get(w.index)!, w.next),
      ),
    );
    for (const w of writes)
      out.push({
        index: w.index,
        status: kind === 'delete' ? 'deleted' : w.prev ? 'updated' : 'created',
        view: views.get(w.index)!,
        record: w.next,
      });
    return out;
  }

  /** The ids of the live records (of the scope) holding these handles, whoever may see them. */
  private async idsByHandle(m: EntityManager, handles: unknown[]): Promise<Map<string, string>> {
    const known: { _id: string; h: unknown }[] = await this.scoped(
      m
        .createQueryBuilder(this.resource.entity, 't')
        .where(`t.deleted = false AND t.${this.resource.handle} = ANY(:handles)`, { handles }),
    )
      .select(['t._id AS _id', `t.${this.resource.handle} AS h`])
      .getRawMany();
    return new Map(known.map((k) => [String(k.h), k._id]));
  }

  /** Which of these records the caller may see (all of them for an unrestricted caller). */
  private async idsInSight(m: EntityManager, ids: string[]): Promise<Set<string>> {
    const audience = ids.length === 0 ? undefined : await this.audience(m, ids);
    if (!audience?.where) return new Set(ids);
    const rows: { _id: string }[] = await this.inSight(
      m.createQueryBuilder(this.resource.entity, 't').where('t._id = ANY(:ids)', { ids }),
      audience,
    )
      .select('t._id', '_id')
      .getRawMany();
    return new Set(rows.map((r) => r._id));
  }

  /** Whether a write would store what is stored: every column but the version, dates and renderings. */
  private sameStored(next: E, prev: E): boolean {
    const meta = this.ds.getMetadata(this.resource.entity);
    const skip = new Set(['version', 'updated_at', 'rendered', 'search_text']);
    return meta.columns.every(
      (c) =>
        skip.has(c.databaseName) ||
        c.generatedType !== undefined ||
        isDeepStrictEqual(c.getEntityValue(next, true) ?? null, c.getEntityValue(prev, true) ?? null),
    );
  }

  /** An item's refusal as its error object; what is not a refusal (an outage, a bug) fails the whole batch. */
  private itemError(err: unknown): PimError {
    const e = toPimError(this.translate(err, undefined));
    if (e.status >= 500) throw err;
    return e;
  }

  /** The refusal of a write whose record the caller could no longer see. */
  private outOfSight(audience: Audience<E, V>, record: E): Error {
    return (
      audience.outOfSight?.(record) ??
      new NotFoundError(`The ${this.label} would be out of your sight after this write`, {
        title: 'Write refused',
        solution: 'Leave the record where your key can still see it',
      })
    );
  }

  private parsePatch(raw: unknown): Record<string, unknown> {
    const parsed = this.resource.schemas.patch.safeParse(raw ?? {});
    if (!parsed.success) throw fromZodError(parsed.error, { title: `Invalid ${this.label} patch` });
    return parsed.data as Record<string, unknown>;
  }

  /** The writable fields of a record as the API shows them: what a merge patch or an upsert starts from. */
  private writableView(record: E): Record<string, unknown> {
    return Object.fromEntries(Object.entries(this.toView(record)).filter(([k]) => this.writable.includes(k)));
  }

  /** Soft-deletes a record; its handle becomes free. The event carries its last state. */
  async remove(id: string, expectedVersion?: number): Promise<V> {
    this.checkId(id);
    return this.transaction('delete', null, async (m) => {
      const record = await this.lockRecord(m, { kind: 'delete', id, scope: this.scope }, expectedVersion);
      await this.resource.hooks?.beforeDelete?.(m, record);
      const now = new Date();
      record.deleted = true;
      record.deleted_at = now;
      record.deleted_by = authorName();
      record.version += 1;
      record.updated_at = now;
      if (this.resource.rendered) (record as { rendered?: string | null }).rendered = null;
      await m.save(this.resource.entity, record as never);
      const view = this.toView(record);
      await this.emit(m, 'deleted', this.deletedData(view, record));
      await this.resource.hooks?.afterDelete?.(m, record);
      return this.shownTo(view, await this.audience(m, [record._id]));
    });
  }

  /**
   * Soft-deletes every live record of the scope inside a running transaction (a parent deleted
   * with its children), one `deleted` event each; returns how many.
   */
  async removeAllWithin(m: EntityManager): Promise<number> {
    if (Object.keys(this.scope).length === 0)
      throw new Error(`removeAllWithin on ${this.resource.collection} needs a scope`);
    const now = new Date();
    const updated = await m
      .createQueryBuilder()
      .update(this.resource.entity)
      .set({
        deleted: true,
        deleted_at: now,
        deleted_by: authorName(),
        updated_at: now,
        version: () => '"version" + 1',
        ...(this.resource.rendered ? { rendered: null } : {}),
      } as never)
      .where({ ...this.scope, deleted: false })
      .returning('_id')
      .execute();
    const ids = (updated.raw as { _id: string }[]).map((r) => r._id);
    if (ids.length === 0) return 0;
    const records = await m.find(this.resource.entity, {
      where: { _id: In(ids) } as never,
      order: { _id: 'ASC' } as never,
    });
    for (const record of records) await this.emit(m, 'deleted', this.deletedData(this.toView(record), record));
    return ids.length;
  }

  /**
   * Every live record (of the scope) matching the query's filters and search, in `_id` order,
   * `batchSize` at a time: each batch is one keyset query (`_id > last`, no OFFSET, no count), so
   * memory stays at one batch however many match. The query's sort, window and expand are ignored.
   */
  async *scan(
    query: Pick<ListQuery, 'filters' | 'search'>,
    batchSize: number,
    opts: { omit?: readonly string[] } = {},
  ): AsyncGenerator<V[]> {
    const columns = this.columnsWithout(opts.omit ?? []);
    const audience = await this.audience();
    let after: string | undefined;
    for (;;) {
      const filters: Filter[] = [
        ...(query.filters ?? []),
        ...(after === undefined ? [] : [{ field: '_id', op: 'gt' as const, values: [after] }]),
      ];
      const batch = keysetWindow({ filters, search: query.search }, batchSize);
      const page = await this.pageQuery(batch, batchSize, audience);
      if (columns) page.select(columns);
      const rows = await page.getMany();
      if (rows.length > 0) yield this.shownAll(rows, audience);
      if (rows.length < batchSize) return;
      after = rows[rows.length - 1]._id;
    }
  }

  /**
   * The columns a scan reads when it leaves `omit` out (undefined: all of them). Only optional
   * fields can be left out — the record's id, version and dates always come — and an unknown name is a 400.
   */
  private columnsWithout(omit: readonly string[]): string[] | undefined {
    if (omit.length === 0) return undefined;
    const meta = this.ds.getMetadata(this.resource.entity);
    const always = ['_id', 'version', 'created_at', 'updated_at', 'deleted'];
    const known = new Set(meta.columns.filter((c) => c.isSelect).map((c) => c.propertyName));
    const bad = omit.filter((name) => !known.has(name) || always.includes(name));
    if (bad.length > 0)
      throw new ValidationError(`Cannot leave out ${bad.map((b) => `'${b}'`).join(', ')}`, {
        title: 'Invalid omit',
        solution: 'Name optional fields of the record only',
        details: bad.map((b) => ({ field: 'omit', message: `'${b}' is not an optional field of the record` })),
      });
    return [...known].filter((name) => !omit.includes(name)).map((name) => `t.${name}`);
  }

  /**
   * The live records (of the scope) matching the query's filters and search (nested ones
   * included), as a query on alias `t` with no order and no window: for an owner's own aggregate
   * over exactly the records a scan or a list would return. The query's sort, window and expand
   * are ignored.
   */
  async matching(query: Pick<ListQuery, 'filters' | 'search'>): Promise<SelectQueryBuilder<E>> {
    return unwindowed(await this.pageQuery(keysetWindow(query, 1)));
  }

  /**
   * Refuses, as the caller, a query they could not run — a filter or search the list does not
   * take, or one naming a field hidden from them — and `columns` naming such a field, without
   * reading a record: for an owner that keeps a query to run later (an export, a batch, a rule),
   * so the refusal comes when the query is given, not when it runs.
   */
  async checkQuery(query: Pick<ListQuery, 'filters' | 'search'>, columns: readonly string[] = []): Promise<void> {
    const audience = await this.audience();
    refuseNamed(audience, columns);
    await this.pageQuery(keysetWindow(query, 1), undefined, audience);
  }

  /** A page of live records (of the scope) and the exact total that match (`count(*)` of the same conditions). */
  async list(query: ListQuery): Promise<{ data: V[]; total: number }> {
    const audience = await this.audience();
    const page = await this.pageQuery(query, undefined, audience);
    // Two connections at once: the request waits for the slower query, not for both in turn.
    const [rows, total] = await Promise.all([page.getMany(), this.countOf(page)]);
    return { data: this.shownAll(rows, audience), total };
  }

  /**
   * The same page serialized as one JSON array of views: for a resource that keeps a rendering,
   * only `_id` and `rendered` are read (nothing decoded), rows without one rendered now.
   */
  async listJson(query: ListQuery): Promise<{ json: string; total: number }> {
    if (!this.resource.rendered) {
      const r = await this.list(query);
      return { json: JSON.stringify(r.data), total: r.total };
    }
    const audience = await this.audience();
    if (audience?.shown) {
      const r = await this.list(query);
      return { json: JSON.stringify(r.data), total: r.total };
    }
    const page = await this.pageQuery(query, undefined, audience);
    const [rows, total] = await Promise.all([
      page.clone().select(['t._id', 't.rendered']).getMany(),
      this.countOf(page),
    ]);
    const rendered = (r: E) => (r as { rendered?: string | null }).rendered ?? null;
    const missing = rows.filter((r) => rendered(r) === null).map((r) => r._id);
    const views = new Map(
      missing.length > 0 ? (await this.batchGet(missing, [])).map((v) => [v._id, JSON.stringify(v)]) : [],
    );
    const items = rows.flatMap((r) => {
      const json = rendered(r) ?? views.get(r._id);
      return json === undefined ? [] : [json];
    });
    return { json: `[${items.join(',')}]`, total };
  }

  /**
   * The exact number of live records (of the scope) the page's conditions match: `count(*)` of the
   * same conditions. A list reads one table with no joins, so every row is one record and no
   * DISTINCT is needed — which lets an index that holds the filtered columns answer it alone.
   */
  private async countOf(page: SelectQueryBuilder<E>): Promise<number> {
    const row = await unwindowed(page).select('COUNT(*)', 'n').getRawOne<{ n: string }>();
    return Number(row?.n ?? 0);
  }

  /**
   * The query of one page on live records (of the scope), alias `t`: each nested filter applied by
   * the first `nestedFilters` entry whose prefix its field starts with, the other filters
   * (validated, the page size up to `maxLimit`) with the search, sort and window by the declaration.
   */
  private async pageQuery(
    query: ListQuery,
    maxLimit?: number,
    audience?: Audience<E, V>,
  ): Promise<SelectQueryBuilder<E>> {
    const nested = this.resource.nestedFilters ?? [];
    const sight = audience ?? (await this.audience());
    const owner = (f: Filter) => nested.find((n) => f.field.startsWith(n.prefix));
    const filters = await this.resolveNested(query.filters ?? [], owner, sight);
    refuseNamed(sight, [...filters.map((f) => f.field), ...(query.sort ?? []).map((s) => s.field)]);
    const q = validateListQuery(
      this.decl,
      { ...query, filters: filters.filter((f) => owner(f) === undefined) },
      { maxLimit },
    );
    const qb = this.inSight(
      this.scoped(this.manager.createQueryBuilder(this.resource.entity, 't').where('t.deleted = false')),
      sight,
    );
    for (const n of nested) {
      const own = filters.filter((f) => owner(f) === n);
      if (own.length > 0) await n.apply(this.manager, qb, own);
    }
    return applyListQuery(qb, this.decl, q, 't', this.sqlOptions());
  }

  /** The filters with each nested one read by its owner's `resolve` (in place; the others as they are). */
  private async resolveNested(
    filters: Filter[],
    owner: (f: Filter) => NestedFilter<E> | undefined,
    sight: Audience<E, V> | undefined,
  ): Promise<Filter[]> {
    const out = [...filters];
    const hidden = (field: string) => sight?.refuseNamed?.([field]) !== undefined;
    for (const n of this.resource.nestedFilters ?? []) {
      if (!n.resolve) continue;
      const at = out.flatMap((f, i) => (owner(f) === n ? [i] : []));
      if (at.length === 0) continue;
      const read = await n.resolve(
        this.manager,
        at.map((i) => out[i]),
        hidden,
      );
      at.forEach((i, k) => (out[i] = read[k]));
    }
    return out;
  }

  /** How `_search` reaches the indexes: the IMMUTABLE unaccent, and the folded column where the table has one. */
  private sqlOptions(): ApplyListQueryOptions {
    const folded = this.ds.getMetadata(this.resource.entity).findColumnWithDatabaseName(SEARCH_FOLDED) !== undefined;
    return { unaccent: this.store.unaccent, ...(folded ? { folded: { [SEARCH_FIELD]: SEARCH_FOLDED } } : {}) };
  }

  /** Live records (of the scope) with one of the ids or handles (unknown ones are left out), ordered by `_id`. */
  async batchGet(ids: string[], handles: string[]): Promise<V[]> {
    if (ids.length + handles.length > BATCH_GET_MAX) {
      throw new ValidationError(
        `At most ${BATCH_GET_MAX} ids and ${this.resource.handle}s can be read at once, got ${ids.length + handles.length}`,
        {
          title: 'Too many ids',
          solution: `Split the request into batches of at most ${BATCH_GET_MAX}`,
        },
      );
    }
    const bad = ids.flatMap((id, i) =>
      isId(id) ? [] : [{ field: `ids.${i}`, message: 'must be 24 lowercase hexadecimal characters' }],
    );
    if (bad.length > 0)
      throw new ValidationError(`${bad.length} id(s) are malformed`, { title: 'Invalid id', details: bad });
    if (ids.length === 0 && handles.length === 0) return [];
    // Handles that are ids name the records as well; other handles leave the records unknown until read.
    const about = this.resource.handle === '_id' ? [...ids, ...handles] : handles.length === 0 ? ids : undefined;
    const audience = await this.audience(this.manager, about);
    const rows = await this.inSight(
      this.scoped(this.manager.createQueryBuilder(this.resource.entity, 't').where('t.deleted = false')),
      audience,
    )
      .andWhere(`(t._id = ANY(:ids) OR t.${this.resource.handle} = ANY(:handles))`, {
        ids: [...new Set(ids)],
        handles: [...new Set(handles.map((h) => this.handleForm(h)))],
      })
      .orderBy('t._id', 'ASC')
      .getMany();
    return this.shownAll(rows, audience);
  }

  /** A handle as it is stored: in NFC when the field keeps it so (a code), so any spelling of it (NFD too) finds it. */
  private handleForm(handle: string): string {
    return this.resource.listDecl.fields[this.resource.handle]?.normalized ? handle.normalize('NFC') : handle;
  }

  private scoped<Q extends { andWhere(where: string, params: Record<string, unknown>): Q }>(qb: Q): Q {
    return Object.entries(this.scope).reduce(
      (q, [column, value], i) => q.andWhere(`t.${column} = :scope_${i}`, { [`scope_${i}`]: value }),
      qb,
    );
  }

  /** The query of one live record (of the scope) by id, within the caller's sight. */
  private live(m: EntityManager, id: string, audience: Audience<E, V> | undefined): SelectQueryBuilder<E> {
    return this.inSight(
      this.scoped(m.createQueryBuilder(this.resource.entity, 't').where('t._id = :id AND t.deleted = false', { id })),
      audience,
    );
  }

  /**
   * What the current caller may see, when the resource restricts it (undefined: everything);
   * `about`: the records the call reads by id, when it reads only those.
   */
  private audience(m: EntityManager = this.manager, about?: readonly string[]): Promise<Audience<E, V> | undefined> {
    return this.resource.audience?.(m, about) ?? Promise.resolve(undefined);
  }

  /** A query kept to the records the caller may see. */
  private inSight<Q extends SelectQueryBuilder<E>>(qb: Q, audience: Audience<E, V> | undefined): Q {
    return audience?.where ? (qb.andWhere(`(${audience.where.sql})`, audience.where.params) as Q) : qb;
  }

  /** A view as the caller is shown it. */
  private shownTo(view: V, audience: Audience<E, V> | undefined): V {
    return audience?.shown ? audience.shown(view) : view;
  }

  private shownAll(rows: E[], audience: Audience<E, V> | undefined): V[] {
    return rows.map((r) => this.shownTo(this.toView(r), audience));
  }

  /** Refuses, inside the write's transaction, a write whose record the caller could no longer see. */
  private async refuseOutOfSight(m: EntityManager, record: E): Promise<void> {
    const audience = await this.audience(m, [record._id]);
    if (!audience?.where) return;
    if ((await this.live(m, record._id, audience).getCount()) > 0) return;
    throw this.outOfSight(audience, record);
  }

  private async update(
    id: string,
    given: Record<string, unknown>,
    expectedVersion: number | undefined,
    inputFor: (current: E) => I,
  ): Promise<V> {
    const { view } = await this.transaction('update', given, (m) =>
      this.write(m, id, given, expectedVersion, inputFor),
    );
    return this.shownTo(view, await this.audience(this.manager, [id]));
  }

  /** Writes the input `inputFor` makes of the locked record, with the resource's rules and the event. */
  private async write(
    m: EntityManager,
    id: string,
    given: Record<string, unknown>,
    expectedVersion: number | undefined,
    inputFor: (current: E) => I,
  ): Promise<{ view: V; record: E }> {
    const prev = await this.lockRecord(m, { kind: 'update', id, given, scope: this.scope }, expectedVersion);
    const input = inputFor(prev);
    const next: E = Object.assign(new this.resource.entity(), prev, this.resource.columns(input, prev));
    await this.resource.hooks?.beforeWrite?.(m, next, prev, this.emitter(m));
    this.searchable(next);
    const written = await this.saveChange(m, next, 'updated');
    await this.refuseOutOfSight(m, next);
    await this.resource.hooks?.afterWrite?.(m, next, prev, this.emitter(m));
    return written;
  }

  /** Sets a record's `search_text` from what it holds now, hooks applied (tables that keep one). */
  private searchable(record: E): void {
    if (this.resource.searchText)
      (record as unknown as { search_text: string }).search_text = this.resource.searchText(record);
  }

  /** Stores a changed record with its next version and its event. */
  private async saveChange(m: EntityManager, next: E, action: string): Promise<{ view: V; record: E }> {
    next.version += 1;
    next.updated_at = new Date();
    const view = this.render(next);
    await m.save(this.resource.entity, next as never);
    await this.emit(m, action, view);
    return { view, record: next };
  }

  /** Takes the resource's early locks, then the record's row lock, and checks If-Match under it. */
  private async lockRecord(
    m: EntityManager,
    request: Exclude<LockRequest, { kind: 'create' }>,
    expectedVersion: number | undefined,
  ): Promise<E> {
    await this.resource.hooks?.lock?.(m, request);
    const record = await this.live(m, request.id, await this.audience(m, [request.id]))
      .setLock('pessimistic_write')
      .getOne();
    if (!record) throw this.notFound(request.id);
    if (expectedVersion !== undefined && expectedVersion !== record.version) {
      throw new PreconditionFailedError(`The ${this.label} is at version ${record.version}, not ${expectedVersion}`, {
        details: [{ field: 'If-Match', message: `current version is ${record.version}` }],
      });
    }
    return record;
  }

  /**
   * Runs a write in a transaction, again when a hook asks for it or Postgres broke a deadlock; the
   * whole write is one span (`<collection>.<op>`), the span the write's event is recorded under.
   */
  private transaction<T>(
    op: string,
    given: Record<string, unknown> | null,
    work: (m: EntityManager) => Promise<T>,
  ): Promise<T> {
    return inSpan(
      `${this.resource.collection}.${op}`,
      {
        attributes: {
          'db.system.name': 'postgresql',
          'pim.collection': this.resource.collection,
          'pim.record.operation': op,
        },
      },
      async (span) => {
        if (this.outer) {
          try {
            return await work(this.outer);
          } catch (err) {
            throw err instanceof RetryWrite ? err : this.translate(err, given?.[this.resource.handle]);
          }
        }
        for (let attempt = 1; ; attempt++) {
          try {
            return await this.ds.transaction(work);
          } catch (err) {
            if ((err instanceof RetryWrite || isDeadlock(err)) && attempt < ATTEMPTS) {
              span.setAttribute('pim.record.attempts', attempt + 1);
              continue;
            }
            throw this.translate(err, given?.[this.resource.handle]);
          }
        }
      },
    );
  }

  private translate(err: unknown, taken: unknown): unknown {
    return translatePgError(err, {
      [`UQ_${this.tableName()}_${this.resource.handle}_live`]: {
        message: this.takenMessage(taken),
        field: this.resource.handle,
      },
    });
  }

  /** `Another live brand already has the code 'x'`: the handle taken by another live record. */
  private takenMessage(taken: unknown): string {
    const { label, handle, parentLabel } = this.names();
    const among = `live ${label}${parentLabel ? ` of the same ${parentLabel}` : ''}`;
    return (
      this.resource.handleTaken?.(taken) ??
      (typeof taken === 'string'
        ? `Another ${among} already has the ${handle} '${taken}'`
        : `Another ${among} already has this ${handle}`)
    );
  }

  /** The 409 of a create naming a handle a live record has: what a single create gets from the unique index. */
  private handleTaken(taken: unknown): PimError {
    return uniqueValueTaken(this.takenMessage(taken), this.resource.handle);
  }

  /** Words for messages: the record, its handle, and its parent's label for a nested resource. */
  private names(): { label: string; handle: string; parentLabel?: string } {
    const parent = this.info.parent === undefined ? undefined : collectionInfo(this.info.parent).label;
    return { label: this.label, handle: this.resource.handle, parentLabel: parent };
  }

  /** The parent's id of a nested resource's calls, when the scope names it. */
  private parentId(): string | undefined {
    const column = this.resource.parent?.column;
    return column === undefined ? undefined : this.scope[column];
  }

  private tableName(): string {
    return this.ds.getMetadata(this.resource.entity).tableName;
  }

  private parseInput(raw: unknown): I {
    const r = this.resource.schemas.input.safeParse(raw);
    if (!r.success) throw fromZodError(r.error, { title: `Invalid ${this.label}` });
    return r.data;
  }

  private checkId(id: string): void {
    requireId(id, this.label);
  }

  private notFound(id: string): NotFoundError {
    const { label, parentLabel } = this.names();
    const parent = this.parentId();
    const under = parentLabel && parent ? ` in ${parentLabel} '${parent}'` : '';
    return new NotFoundError(`No ${label} with _id '${id}'${under}`, {
      title: `${label[0].toUpperCase()}${label.slice(1)} not found`,
      ...withLinks(
        (link) => `List them with ${link({ collection: this.resource.collection, parent })} to find the right _id`,
      ),
    });
  }

  /** What hooks emit other records' events with: the record as this resource shows it, in the same transaction. */
  private emitter(m: EntityManager): Emit<E> {
    return (action, record) => this.emit(m, action, this.toView(record));
  }

  /** A `deleted` event's data: the record's last state, with when and by whom it was deleted. */
  private deletedData(view: V, record: E): V {
    return {
      ...view,
      deleted_at: record.deleted_at?.toISOString() ?? null,
      deleted_by: record.deleted_by ?? null,
    };
  }

  private async emit(m: EntityManager, action: string, data: V): Promise<void> {
    await recordEvent(m, this.eventOf(action, data));
  }

  /**
   * An event of this collection, by the current caller; with the record whose view `data` is,
   * its stored rendering is the data's JSON (serialized once, for the row and its event).
   */
  private eventOf(action: string, data: unknown, record?: E): RecordEventsInput {
    const ctx = currentContext();
    const dataJson = (record as { rendered?: string | null } | undefined)?.rendered ?? undefined;
    return {
      source: this.store.source,
      collection: this.resource.collection,
      action,
      data,
      ...(dataJson !== undefined ? { dataJson } : {}),
      actor: ctx?.actor,
      requestId: ctx?.requestId,
    };
  }
}
