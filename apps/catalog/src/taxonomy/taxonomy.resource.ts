import type { EntityManager } from 'typeorm';
import type { z } from 'zod';
import { declareResource, type ResourceDecl } from '@pim/query';
import type { TaxonomyInput, TaxonomyView } from '@pim/resources';
import type { TaxonomyEntity } from './taxonomy.entity';

/** The fields a taxonomy table adds to the common ones. */
export type OwnColumns<E extends TaxonomyEntity> = Omit<E, keyof TaxonomyEntity>;

/** The fields a taxonomy resource shows beyond the common ones. */
export type OwnView<V extends TaxonomyView> = Omit<V, keyof TaxonomyView>;

/** What a write is about, for a hook that must lock before the record's own row. */
export type LockRequest =
  | { kind: 'create'; input: Record<string, unknown> }
  /** `given`: the whole input of a replace, or the patch of a merge patch. */
  | { kind: 'update'; id: string; given: Record<string, unknown> }
  | { kind: 'delete'; id: string };

/** Records the event of another record of the same collection (shown as the API shows it), in the running transaction. */
export type Emit<E> = (action: 'updated', record: E) => Promise<void>;

/** Rules of one resource that need the database; each runs inside the write's transaction. */
export interface TaxonomyHooks<E extends TaxonomyEntity> {
  /** Takes locks that must come before the record's row lock, so every writer locks in one order. */
  lock?(m: EntityManager, request: LockRequest): Promise<void>;
  /** Checks references and fills derived columns of the record about to be written (prev is null on create). */
  beforeWrite?(m: EntityManager, next: E, prev: E | null): Promise<void>;
  /** Writes that follow the record's own (moving a subtree), with their events. */
  afterWrite?(m: EntityManager, next: E, prev: E, emit: Emit<E>): Promise<void>;
  /** Refuses a delete that would leave live records pointing at this one (409). */
  beforeDelete?(m: EntityManager, record: E): Promise<void>;
}

/**
 * One taxonomy resource, declared once: its table, its public schemas and list fields, how its
 * own fields map to columns and back, and its database rules. The service, the gRPC handlers
 * and the gateway routes are derived from declarations like this one.
 */
export interface TaxonomyResource<E extends TaxonomyEntity, V extends TaxonomyView, I extends TaxonomyInput = TaxonomyInput> {
  /** The collection (events, list declaration, scopes): `brands`, `category_trees`... */
  collection: string;
  /** The record in words, for messages: `brand`, `category tree`. */
  label: string;
  /** The REST path of its list, for messages that tell the caller where to look. */
  path: string;
  entity: new () => E;
  /** Object schemas: the input's keys are the writable fields a merge patch starts from. */
  schemas: { input: z.ZodType<I> & { shape: z.ZodRawShape }; patch: z.ZodType };
  /** The public list declaration (`@pim/resources`); the service derives its storage form from it. */
  listDecl: ResourceDecl;
  /** Columns the storage form maps a public field to, when they differ (a filter on a derived column). */
  listColumns?: Record<string, string>;
  /** This resource's own columns from a validated input (derived columns may be filled by beforeWrite). */
  ownColumns(input: I, prev: E | null): OwnColumns<E>;
  /** This resource's own fields of the view, in the order the API shows them. */
  ownView(record: E): OwnView<V>;
  hooks?: TaxonomyHooks<E>;
}

/** The field the storage declarations search in: one column holding code and every name. */
export const SEARCH_FIELD = 'search_text';

/**
 * The declaration the owner runs lists with: the public one, with `_search` moved from the
 * public fields onto the single `search_text` column (indexed), and derived columns mapped.
 */
export function storageDecl(decl: ResourceDecl, columns: Record<string, string> = {}): ResourceDecl {
  const fields = Object.fromEntries(
    Object.entries(decl.fields).map(([name, f]) => [name, { ...f, searchable: false, column: columns[name] ?? f.column }]),
  );
  return declareResource({
    collection: decl.collection,
    defaultSort: decl.defaultSort,
    fields: { ...fields, [SEARCH_FIELD]: { type: 'string', searchable: true, filterable: false, sortable: false } },
  });
}

/** What `_search` looks in: the code and every language of the name, one per line. */
export function searchTextOf(code: string, name: Record<string, string>): string {
  return [code, ...Object.values(name)].join('\n');
}
