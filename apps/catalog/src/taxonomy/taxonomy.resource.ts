import type { z } from 'zod';
import type { ResourceDecl } from '@pim/query';
import type { TaxonomyInput, TaxonomyView } from '@pim/resources';
import { searchTextOf, type RecordHooks, type RecordResource, type RecordView } from '../record/record.resource';
import type { TaxonomyEntity } from './taxonomy.entity';

/** The fields a taxonomy table adds to the common ones. */
export type OwnColumns<E extends TaxonomyEntity> = Omit<E, keyof TaxonomyEntity>;

/** The fields a taxonomy resource shows beyond the common ones. */
export type OwnView<V extends TaxonomyView> = Omit<V, keyof TaxonomyView>;

/**
 * One taxonomy resource (brands, category trees, categories, families, catalogs): the shared
 * taxonomy fields (`code`, `name`, `description`, `enabled`, `tags`) are implied; the declaration
 * gives only what the resource adds. `taxonomyRecord` turns it into a record resource.
 */
export interface TaxonomyResource<
  E extends TaxonomyEntity,
  V extends TaxonomyView,
  I extends TaxonomyInput = TaxonomyInput,
> {
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
  hooks?: RecordHooks<E>;
}

/** A taxonomy declaration as a record resource: named by `code`, searched by code and name. */
export function taxonomyRecord<E extends TaxonomyEntity, V extends TaxonomyView, I extends TaxonomyInput>(
  r: TaxonomyResource<E, V, I>,
): RecordResource<E, V, I> {
  return {
    collection: r.collection,
    label: r.label,
    path: r.path,
    entity: r.entity,
    schemas: r.schemas,
    listDecl: r.listDecl,
    listColumns: r.listColumns,
    handle: 'code',
    hooks: r.hooks,
    columns: (input, prev) =>
      ({
        code: input.code,
        name: input.name,
        description: input.description ?? {},
        enabled: input.enabled ?? true,
        tags: input.tags ?? [],
        search_text: searchTextOf(input.code, input.name),
        ...r.ownColumns(input, prev),
      }) as Partial<E>,
    view: (e) =>
      ({
        code: e.code,
        name: e.name,
        description: e.description,
        enabled: e.enabled,
        tags: e.tags,
        ...r.ownView(e),
      }) as unknown as Omit<V, keyof RecordView>,
  };
}
