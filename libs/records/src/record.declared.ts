import type { z } from 'zod';
import type { Fields, Resource } from '@pim/resources';
import type { RecordEntity } from './record.entity';
import type { RecordHooks, RecordResource, RecordView } from './record.resource';

/** What the owner adds to a declared resource: its table, handle, derived columns and rules. */
export interface RecordStorage<E extends RecordEntity, I> {
  entity: new () => E;
  /** The field (and column) unique among live records: `code`, `key`, `collection`. */
  handle: keyof E & string;
  /** Columns the owner derives from an input (its search text, a path), besides the declared ones. */
  derived?(input: I, prev: E | null): Partial<E>;
  /** Columns a filter of the public list maps to, when they differ (a filter on a derived column). */
  listColumns?: Record<string, string>;
  hooks?: RecordHooks<E>;
  /** The message when another live record has the handle. */
  handleTaken?(taken: unknown): string;
  /** The column naming the parent of a nested resource. */
  parent?: { column: keyof E & string };
  /** The record keeps its API view serialized in a `rendered` column. */
  rendered?: boolean;
}

/**
 * A resource of the record engine from its declaration (`@pim/resources`): its collection,
 * schemas, list fields and column ↔ view mapping come from the declaration; the owner gives only
 * its table, handle, derived columns and rules.
 */
export function declaredRecord<F extends Fields, E extends RecordEntity>(
  declaration: Resource<F>,
  storage: RecordStorage<E, z.infer<Resource<F>['schemas']['input']>>,
): RecordResource<E, z.infer<Resource<F>['schemas']['view']> & RecordView, z.infer<Resource<F>['schemas']['input']>> {
  type I = z.infer<Resource<F>['schemas']['input']>;
  type V = z.infer<Resource<F>['schemas']['view']> & RecordView;
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
    hooks: storage.hooks,
    columns: (input, prev) =>
      ({
        ...declaration.columns(input as Record<string, unknown>),
        ...storage.derived?.(input, prev),
      }) as Partial<E>,
    view: (record) => declaration.view(record as unknown as Record<string, unknown>) as Omit<V, keyof RecordView>,
  };
}
