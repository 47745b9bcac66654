import type { DataSource, EntityManager, SelectQueryBuilder } from 'typeorm';
import { In } from 'typeorm';
import {
  ConflictError,
  NotFoundError,
  PreconditionFailedError,
  ValidationError,
  fromZodError,
  withLinks,
} from '@pim/errors';
import { isId, newId, requireId } from '@pim/ids';
import { authorName, currentContext, inSpan } from '@pim/logging';
import { recordEvent } from '@pim/events';
import { isDeadlock, quoteIdent, translatePgError } from '@pim/db';
import {
  applyListQuery,
  validateListQuery,
  type ApplyListQueryOptions,
  type Filter,
  type ListQuery,
  type ResourceDecl,
} from '@pim/query';
import { collectionInfo, type CollectionInfo } from '@pim/resources';
import { mergePatch } from './merge-patch';
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

/** What a `mutate` change answers: false to leave the record as it was, else the event its write records (`updated` by default). */
export type Mutation = boolean | void | { event: string };

/** Thrown by a hook when what it locked no longer matches the record; the whole write runs again. */
export class RetryWrite extends Error {
  constructor(reason: string) {
    super(`write must be retried: ${reason}`);
  }
}

const ATTEMPTS = 3;

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
    const parsed = this.resource.schemas.patch.safeParse(raw ?? {});
    if (!parsed.success) throw fromZodError(parsed.error, { title: `Invalid ${this.label} patch` });
    const patch = parsed.data as Record<string, unknown>;
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
      const event = typeof outcome === 'object' ? outcome.event : 'updated';
      return { ...(await this.saveChange(m, record, event)), changed: true };
    });
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
    throw (
      audience.outOfSight?.(record) ??
      new NotFoundError(`The ${this.label} would be out of your sight after this write`, {
        title: 'Write refused',
        solution: 'Leave the record where your key can still see it',
      })
    );
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
    const { label, handle, parentLabel } = this.names();
    const among = `live ${label}${parentLabel ? ` of the same ${parentLabel}` : ''}`;
    return translatePgError(err, {
      [`UQ_${this.tableName()}_${handle}_live`]: {
        message:
          this.resource.handleTaken?.(taken) ??
          (typeof taken === 'string'
            ? `Another ${among} already has the ${handle} '${taken}'`
            : `Another ${among} already has this ${handle}`),
        field: handle,
      },
    });
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
    const ctx = currentContext();
    await recordEvent(m, {
      source: this.store.source,
      collection: this.resource.collection,
      action,
      data,
      actor: ctx?.actor,
      requestId: ctx?.requestId,
    });
  }
}
