import type { EntityManager, SelectQueryBuilder } from 'typeorm';
import type { z } from 'zod';
import { declareResource, type Filter, type ResourceDecl } from '@pim/query';
import type { RecordEntity } from './record.entity';

/** What every record shows besides its own fields: `_id` first, then version and dates last. */
export interface RecordView {
  _id: string;
  version: number;
  created_at: string;
  updated_at: string;
  created_by_name?: string;
}

/** The parent a nested resource's records belong to (`{ attribute_id: '…' }`), fixed per call. */
export type Scope = Record<string, string>;

/** What a write is about, for a hook that must lock before the record's own row. */
export type LockRequest =
  | { kind: 'create'; input: Record<string, unknown>; scope: Scope }
  /** `given`: the whole input of a replace, or the patch of a merge patch. */
  | { kind: 'update'; id: string; given: Record<string, unknown>; scope: Scope }
  | { kind: 'delete'; id: string; scope: Scope };

/** Records the event (`updated`, or one of the collection's own) of another record of the same collection, shown as the API shows it, in the running transaction. */
export type Emit<E> = (action: string, record: E) => Promise<void>;

/** Rules of one resource that need the database; each runs inside the write's transaction. */
export interface RecordHooks<E extends RecordEntity> {
  /** Takes locks that must come before the record's row lock, so every writer locks in one order. */
  lock?(m: EntityManager, request: LockRequest): Promise<void>;
  /**
   * The `lock` of a batch's records at once (`mutateMany`), in the order the resource's other
   * writers take them (one statement instead of one call per record); without it, `lock` runs for
   * each record in `_id` order.
   */
  lockMany?(m: EntityManager, requests: LockRequest[]): Promise<void>;
  /**
   * Checks references and fills derived columns of the record about to be written (prev is null on
   * create); writes that must precede it (another record giving up what this one takes) emit
   * their own events through `emit`.
   */
  beforeWrite?(m: EntityManager, next: E, prev: E | null, emit: Emit<E>): Promise<void>;
  /** Writes that follow the record's own (moving a subtree), with their events. */
  afterWrite?(m: EntityManager, next: E, prev: E, emit: Emit<E>): Promise<void>;
  /** Refuses a delete that would leave live records pointing at this one (409). */
  beforeDelete?(m: EntityManager, record: E): Promise<void>;
  /** Writes that follow a delete (records of other collections deleted with it, with their events). */
  afterDelete?(m: EntityManager, record: E): Promise<void>;
}

/**
 * What the current caller may see of a resource's records, when not all of it (read from the
 * request context by `RecordResource.audience`). The service applies it to every read and write:
 * a record out of sight is absent from lists and their totals and is a 404 by id, a write that
 * would leave it out of sight is refused, and views are shown through `shown`.
 */
export interface Audience<E extends RecordEntity, V extends RecordView> {
  /** The condition on alias `t` keeping the records the caller may see (`false` for none), with its parameters. */
  where?: { sql: string; params: Record<string, unknown> };
  /** The refusal of a write whose record the caller could no longer see. */
  outOfSight?(record: E): Error;
  /** The view as the caller is shown it (values hidden from them left out). */
  shown?(view: V): V;
  /**
   * The refusal of a query naming fields hidden from the caller (`attributes.<key>` of an attribute
   * they may not see) as a filter, a sort or a column, or undefined when it names none. The engine
   * asks it before any query is built, so no row is read for such a query: answering it at all —
   * which products match `attributes.cost_gte=…` — would tell the values the views leave out.
   */
  refuseNamed?(fields: readonly string[]): Error | undefined;
}

/**
 * One resource of an owner app, declared once: its table, its public schemas and list fields, how
 * its fields map to columns and back, and its database rules. The service and the gRPC handlers
 * are derived from declarations like this one; its names and labels come from its collection
 * (`COLLECTIONS` in `@pim/resources`).
 */
export interface RecordResource<E extends RecordEntity, V extends RecordView, I> {
  /** The collection (events, list declaration, scopes, names in messages): `brands`, `attribute_options`... */
  collection: string;
  entity: new () => E;
  /** Object schemas: the input's keys are the writable fields a merge patch starts from. */
  schemas: { input: z.ZodType<I> & { shape: z.ZodRawShape }; patch: z.ZodType };
  /** The public list declaration (`@pim/resources`); the service derives its storage form from it. */
  listDecl: ResourceDecl;
  /** Columns the storage form maps a public field to, when they differ (a filter on a derived column). */
  listColumns?: Record<string, string>;
  /**
   * The field (and column) that names a record for people and imports — `code`, `key`, `value` —
   * unique among live records (of one parent, for a nested resource) through the index
   * `UQ_<table>_<handle>_live`. BatchGet reads by it.
   */
  handle: keyof E & string;
  /** The message when another live record has the handle (default: `Another live brand already has the code 'x'`). */
  handleTaken?(taken: unknown): string;
  /** The column naming the parent of a nested resource (set from the scope, never from the input). */
  parent?: { column: keyof E & string };
  /** Every writable column (derived ones and `search_text` included) from a validated input. */
  columns(input: I, prev: E | null): Partial<E>;
  /**
   * The `search_text` of a record as it is about to be stored, on tables that keep one: taken once
   * its hooks have run, so fields the owner computes (an upload's file name) are searched too.
   */
  searchText?(record: E): string;
  /** The fields the API shows between `_id` and `version`, in the order it shows them. */
  view(record: E): Omit<V, keyof RecordView>;
  hooks?: RecordHooks<E>;
  /**
   * Filters the list declaration cannot run itself (`attributes.<key>`, `catalog_id`): each
   * filter goes to the first entry whose `prefix` its field starts with.
   */
  nestedFilters?: NestedFilter<E>[];
  /**
   * The record keeps its API view serialized in a `rendered` text column (written with every
   * write, NULL once deleted), so a read by id returns it as stored (RecordService.getJson).
   */
  rendered?: boolean;
  /**
   * What the current caller may see, when restricted (undefined: everything). `about` names the
   * records the call reads by id, when it reads only those: a condition that costs per record
   * (asking another app about each) may be worked out for them alone.
   */
  audience?(m: EntityManager, about?: readonly string[]): Promise<Audience<E, V> | undefined>;
}

/**
 * Filters on values the list declaration cannot name or run (`attributes.<key>`, membership in a
 * jsonb array): those whose field starts with `prefix` skip the declaration's checks and are
 * applied by `apply` (which checks them itself) to the query on alias `t`.
 */
export interface NestedFilter<E extends RecordEntity> {
  prefix: string;
  /**
   * Reads the filters as the owner understands them before anything else looks at them (the
   * caller's sight among it): each answered in place, in order. `hidden(field)` says whether a
   * field is out of the caller's sight, so a reading never depends on what the caller may not see.
   */
  resolve?(m: EntityManager, filters: Filter[], hidden: (field: string) => boolean): Promise<Filter[]>;
  apply(m: EntityManager, qb: SelectQueryBuilder<E>, filters: Filter[]): Promise<void>;
}

/** The field the storage declarations search in: one column holding every searchable text. */
export const SEARCH_FIELD = 'search_text';

/**
 * The declaration the owner runs lists with: the public one, with `_search` moved from the
 * public fields onto the single `search_text` column (indexed), and derived columns mapped.
 */
export function storageDecl(decl: ResourceDecl, columns: Record<string, string> = {}): ResourceDecl {
  const fields = Object.fromEntries(
    Object.entries(decl.fields).map(([name, f]) => [
      name,
      { ...f, searchable: false, column: columns[name] ?? f.column },
    ]),
  );
  return declareResource({
    collection: decl.collection,
    defaultSort: decl.defaultSort,
    fields: { ...fields, [SEARCH_FIELD]: { type: 'string', searchable: true, filterable: false, sortable: false } },
  });
}

/** The search text of some fields: each string, and every language of each Translate, one per line. */
export function searchTextOf(...values: (string | Record<string, string> | null | undefined)[]): string {
  return values
    .flatMap((v) => (v === undefined || v === null ? [] : typeof v === 'string' ? [v] : Object.values(v)))
    .join('\n');
}
