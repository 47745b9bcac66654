import type { EntityManager } from 'typeorm';
import type { z } from 'zod';
import type { Fields, Resource } from '@pim/resources';
import { SearchableRecordEntity, type RecordEntity } from './record.entity';
import { searchTextOf } from './record.resource';
import type { Audience, NestedFilter, RecordHooks, RecordResource, RecordView } from './record.resource';

/** What the owner adds to a declared resource: its table, handle, derived columns and rules. */
export interface RecordStorage<E extends RecordEntity, I, V extends RecordView = RecordView> {
  entity: new () => E;
  /** The field (and column) unique among live records: `code`, `key`, `collection`. */
  handle: keyof E & string;
  /**
   * Columns the owner derives from an input (a path), besides the declared ones and the search
   * text (the searchable fields, one per line, on a table with a search column).
   */
  derived?(input: I, prev: E | null): Partial<E>;
  /** Fields the view shows from derived columns: those declared without a column of their own (`stored(false)`). */
  derivedView?(record: E): Record<string, unknown>;
  /** Columns a filter of the public list maps to, when they differ (a filter on a derived column). */
  listColumns?: Record<string, string>;
  hooks?: RecordHooks<E>;
  /** The message when another live record has the handle. */
  handleTaken?(taken: unknown): string;
  /** The column naming the parent of a nested resource. */
  parent?: { column: keyof E & string };
  /** The record keeps its API view serialized in a `rendered` column. */
  rendered?: boolean;
  /** Filters the declaration cannot run (`attributes.<key>`, `catalog_id`), applied by the owner, by prefix. */
  nestedFilters?: NestedFilter<E>[];
  /** What the current caller may see, when restricted (undefined: everything); `about`: the records a call reads by id. */
  audience?(m: EntityManager, about?: readonly string[]): Promise<Audience<E, V> | undefined>;
}

/**
 * A resource of the record engine from its declaration (`@pim/resources`): its collection,
 * schemas, list fields and column ↔ view mapping come from the declaration; the owner gives only
 * its table, handle, derived columns and rules.
 */
export function declaredRecord<F extends Fields, E extends RecordEntity>(
  declaration: Resource<F>,
  storage: RecordStorage<
    E,
    z.infer<Resource<F>['schemas']['input']>,
    z.infer<Resource<F>['schemas']['view']> & RecordView
  >,
): RecordResource<E, z.infer<Resource<F>['schemas']['view']> & RecordView, z.infer<Resource<F>['schemas']['input']>> {
  type I = z.infer<Resource<F>['schemas']['input']>;
  type V = z.infer<Resource<F>['schemas']['view']> & RecordView;
  // A table with a search column stores the texts of the searchable fields in it, one per line.
  const searchable = storage.entity.prototype instanceof SearchableRecordEntity;
  const searchedFields = Object.entries(declaration.fields)
    .filter(([, f]) => f.spec.searchable === true)
    .map(([name]) => name);
  const searchText = (input: Record<string, unknown>) =>
    searchTextOf(...searchedFields.map((name) => input[name] as string | Record<string, string> | undefined));
  return {
    collection: declaration.collection,
    entity: storage.entity,
    schemas: declaration.schemas as unknown as RecordResource<E, V, I>['schemas'],
    listDecl: declaration.listDecl,
    listColumns: storage.listColumns,
    handle: storage.handle,
    handleTaken: storage.handleTaken,
    parent: storage.parent,
    rendered: storage.rendered,
    nestedFilters: storage.nestedFilters,
    hooks: storage.hooks,
    audience: storage.audience,
    columns: (input, prev) =>
      ({
        ...declaration.columns(input as Record<string, unknown>),
        ...(searchable ? { search_text: searchText(input as Record<string, unknown>) } : {}),
        ...storage.derived?.(input, prev),
      }) as Partial<E>,
    // Searchable fields the owner computes (not in the input) are read from the record itself.
    ...(searchable ? { searchText: (record: E) => searchText(record as unknown as Record<string, unknown>) } : {}),
    view: (record) =>
      ({
        ...declaration.view(record as unknown as Record<string, unknown>),
        ...storage.derivedView?.(record),
      }) as Omit<V, keyof RecordView>,
  };
}
