import type { DataSource, EntityManager } from 'typeorm';
import { NotFoundError, PreconditionFailedError, ValidationError, fromZodError } from '@pim/errors';
import { isId, newId, requireId } from '@pim/ids';
import { currentContext } from '@pim/logging';
import { recordEvent } from '@pim/events';
import { translatePgError } from '@pim/db';
import { applyListQuery, validateListQuery, type ListQuery, type ResourceDecl } from '@pim/query';
import type { TaxonomyInput, TaxonomyView } from '@pim/resources';
import type { TaxonomyEntity } from './taxonomy.entity';
import { mergePatch } from './merge-patch';
import { searchTextOf, storageDecl, type LockRequest, type TaxonomyResource } from './taxonomy.resource';

/** The app whose events these are. */
export const SOURCE = 'catalog';

/** The IMMUTABLE unaccent wrapper the search indexes are built on (see the first migration). */
export const UNACCENT = 'catalog.immutable_unaccent';

/** Most ids and codes one BatchGet may ask for. */
export const BATCH_GET_MAX = 1_000;

/** Thrown by a hook when what it locked no longer matches the record; the whole write runs again. */
export class RetryWrite extends Error {
  constructor(reason: string) {
    super(`write must be retried: ${reason}`);
  }
}

const ATTEMPTS = 3;
const DEADLOCK = '40P01';

const isDeadlock = (err: unknown): boolean =>
  (err as { driverError?: { code?: string } })?.driverError?.code === DEADLOCK || (err as { code?: string })?.code === DEADLOCK;

/**
 * The domain service of one taxonomy resource: create, get, replace, merge-patch, soft delete,
 * list and batch get. Every write is one transaction holding the record's row lock, the
 * If-Match check, the resource's rules and the `<collection>.<action>` event in the outbox.
 */
export class TaxonomyService<E extends TaxonomyEntity, V extends TaxonomyView, I extends TaxonomyInput = TaxonomyInput> {
  private readonly decl: ResourceDecl;
  private readonly writable: string[];

  constructor(
    private readonly ds: DataSource,
    readonly resource: TaxonomyResource<E, V, I>,
  ) {
    this.decl = storageDecl(resource.listDecl, resource.listColumns);
    this.writable = Object.keys(resource.schemas.input.shape);
  }

  /** The record as the API shows it: common fields, then its own, then version and dates. */
  toView(e: E): V {
    const view = {
      _id: e._id,
      code: e.code,
      name: e.name,
      description: e.description,
      enabled: e.enabled,
      tags: e.tags,
      ...this.resource.ownView(e),
      version: e.version,
      created_at: e.created_at.toISOString(),
      updated_at: e.updated_at.toISOString(),
      ...(e.created_by_name !== null ? { created_by_name: e.created_by_name } : {}),
    };
    return view as unknown as V;
  }

  /** Creates a record; its code must be free among live records. */
  async create(raw: unknown): Promise<V> {
    const input = this.parseInput(raw);
    return this.transaction(input, async (m) => {
      await this.resource.hooks?.lock?.(m, { kind: 'create', input: input as unknown as Record<string, unknown> });
      const now = new Date();
      const record = m.create(this.resource.entity, {
        _id: newId(),
        ...this.columnsOf(input, null),
        version: 1,
        created_at: now,
        updated_at: now,
        created_by_name: currentContext()?.actor?.user_name ?? null,
        deleted: false,
        deleted_at: null,
        deleted_by: null,
      } as unknown as E);
      await this.resource.hooks?.beforeWrite?.(m, record, null);
      await m.insert(this.resource.entity, record as never);
      const view = this.toView(record);
      await this.emit(m, 'created', view);
      return view;
    });
  }

  /** One live record. */
  async get(id: string): Promise<V> {
    this.checkId(id);
    const record = await this.ds.manager.findOne(this.resource.entity, { where: { _id: id, deleted: false } as never });
    if (!record) throw this.notFound(id);
    return this.toView(record);
  }

  /** Replaces every writable field; omitted optional fields return to their defaults. */
  async replace(id: string, raw: unknown, expectedVersion?: number): Promise<V> {
    this.checkId(id);
    const input = this.parseInput(raw);
    return this.update(id, input as unknown as Record<string, unknown>, expectedVersion, () => input);
  }

  /** Applies a JSON merge patch (RFC 7396) to the writable fields; the result must be a valid input. */
  async patch(id: string, raw: unknown, expectedVersion?: number): Promise<V> {
    this.checkId(id);
    const parsed = this.resource.schemas.patch.safeParse(raw ?? {});
    if (!parsed.success) throw fromZodError(parsed.error, { title: `Invalid ${this.resource.label} patch` });
    const patch = parsed.data as Record<string, unknown>;
    return this.update(id, patch, expectedVersion, (current) => {
      const writable = Object.fromEntries(Object.entries(this.toView(current)).filter(([k]) => this.writable.includes(k)));
      return this.parseInput(mergePatch(writable, patch));
    });
  }

  /** Soft-deletes a record; its code becomes free. The event carries its last state. */
  async remove(id: string, expectedVersion?: number): Promise<V> {
    this.checkId(id);
    return this.transaction(null, async (m) => {
      const record = await this.lockRecord(m, { kind: 'delete', id }, expectedVersion);
      await this.resource.hooks?.beforeDelete?.(m, record);
      const now = new Date();
      record.deleted = true;
      record.deleted_at = now;
      record.deleted_by = currentContext()?.actor?.user_name ?? null;
      record.version += 1;
      record.updated_at = now;
      await m.save(this.resource.entity, record as never);
      const view = this.toView(record);
      await this.emit(m, 'deleted', view);
      return view;
    });
  }

  /** A page of live records and the total that match. */
  async list(query: ListQuery): Promise<{ data: V[]; total: number }> {
    const q = validateListQuery(this.decl, query);
    const qb = this.ds.manager.createQueryBuilder(this.resource.entity, 't').where('t.deleted = false');
    const [rows, total] = await applyListQuery(qb, this.decl, q, 't', { unaccent: UNACCENT }).getManyAndCount();
    return { data: rows.map((r) => this.toView(r)), total };
  }

  /** Live records with one of the ids or codes (unknown ones are left out), ordered by `_id`. */
  async batchGet(ids: string[], codes: string[]): Promise<V[]> {
    if (ids.length + codes.length > BATCH_GET_MAX) {
      throw new ValidationError(`At most ${BATCH_GET_MAX} ids and codes can be read at once, got ${ids.length + codes.length}`, {
        title: 'Too many ids',
        solution: `Split the request into batches of at most ${BATCH_GET_MAX}`,
      });
    }
    const bad = ids.flatMap((id, i) => (isId(id) ? [] : [{ field: `ids.${i}`, message: 'must be 24 lowercase hexadecimal characters' }]));
    if (bad.length > 0) throw new ValidationError(`${bad.length} id(s) are malformed`, { title: 'Invalid id', details: bad });
    if (ids.length === 0 && codes.length === 0) return [];
    const rows = await this.ds.manager
      .createQueryBuilder(this.resource.entity, 't')
      .where('t.deleted = false')
      .andWhere('(t._id = ANY(:ids) OR t.code = ANY(:codes))', { ids: [...new Set(ids)], codes: [...new Set(codes)] })
      .orderBy('t._id', 'ASC')
      .getMany();
    return rows.map((r) => this.toView(r));
  }

  private async update(
    id: string,
    given: Record<string, unknown>,
    expectedVersion: number | undefined,
    inputFor: (current: E) => I,
  ): Promise<V> {
    return this.transaction(given, async (m) => {
      const prev = await this.lockRecord(m, { kind: 'update', id, given }, expectedVersion);
      const input = inputFor(prev);
      const next: E = Object.assign(new this.resource.entity(), prev, this.columnsOf(input, prev));
      await this.resource.hooks?.beforeWrite?.(m, next, prev);
      next.version = prev.version + 1;
      next.updated_at = new Date();
      await m.save(this.resource.entity, next as never);
      const view = this.toView(next);
      await this.emit(m, 'updated', view);
      await this.resource.hooks?.afterWrite?.(m, next, prev, (action, record) => this.emit(m, action, this.toView(record)));
      return view;
    });
  }

  /** Takes the resource's early locks, then the record's row lock, and checks If-Match under it. */
  private async lockRecord(m: EntityManager, request: Exclude<LockRequest, { kind: 'create' }>, expectedVersion: number | undefined): Promise<E> {
    await this.resource.hooks?.lock?.(m, request);
    const record = await m.findOne(this.resource.entity, {
      where: { _id: request.id, deleted: false } as never,
      lock: { mode: 'pessimistic_write' },
    });
    if (!record) throw this.notFound(request.id);
    if (expectedVersion !== undefined && expectedVersion !== record.version) {
      throw new PreconditionFailedError(`The ${this.resource.label} is at version ${record.version}, not ${expectedVersion}`, {
        details: [{ field: 'If-Match', message: `current version is ${record.version}` }],
      });
    }
    return record;
  }

  /** The common writable columns plus the resource's own, from a validated input. */
  private columnsOf(input: I, prev: E | null): Partial<E> {
    return {
      code: input.code,
      name: input.name,
      description: input.description ?? {},
      enabled: input.enabled ?? true,
      tags: input.tags ?? [],
      search_text: searchTextOf(input.code, input.name),
      ...this.resource.ownColumns(input, prev),
    } as Partial<E>;
  }

  /** Runs a write in a transaction, again when a hook asks for it or Postgres broke a deadlock. */
  private async transaction<T>(given: { code?: unknown } | null, work: (m: EntityManager) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.ds.transaction(work);
      } catch (err) {
        if ((err instanceof RetryWrite || isDeadlock(err)) && attempt < ATTEMPTS) continue;
        const code = typeof given?.code === 'string' ? given.code : undefined;
        throw translatePgError(err, {
          [`UQ_${this.tableName()}_code_live`]: {
            message: code !== undefined ? `Another live ${this.resource.label} already has the code '${code}'` : `Another live ${this.resource.label} already has this code`,
            field: 'code',
          },
        });
      }
    }
  }

  private tableName(): string {
    return this.ds.getMetadata(this.resource.entity).tableName;
  }

  private parseInput(raw: unknown): I {
    const r = this.resource.schemas.input.safeParse(raw);
    if (!r.success) throw fromZodError(r.error, { title: `Invalid ${this.resource.label}` });
    return r.data;
  }

  private checkId(id: string): void {
    requireId(id, this.resource.label);
  }

  private notFound(id: string): NotFoundError {
    const label = this.resource.label;
    return new NotFoundError(`No ${label} with _id '${id}'`, {
      title: `${label[0].toUpperCase()}${label.slice(1)} not found`,
      solution: `List them with GET ${this.resource.path} to find the right _id`,
    });
  }

  private async emit(m: EntityManager, action: 'created' | 'updated' | 'deleted', data: V): Promise<void> {
    const ctx = currentContext();
    await recordEvent(m, { source: SOURCE, collection: this.resource.collection, action, data, actor: ctx?.actor, requestId: ctx?.requestId });
  }
}
