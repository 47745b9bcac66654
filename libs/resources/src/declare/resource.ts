import { z } from 'zod';
import { declareResource, type FieldDecl, type ResourceDecl } from '@pim/query';
import { codeNames, collectionInfo, type CollectionInfo } from '../collections';
import { dateTimeSchema, objectIdSchema } from '../common';
import { withArticle } from '../article';
import type { Field, FieldSpec } from './field';

/** The fields of a resource, by name, in the order the API shows them. */
export type Fields = Record<string, Field<FieldSpec>>;

type SpecOf<F> = F extends Field<infer S> ? S : never;
type WritableKeys<F extends Fields> = {
  [K in keyof F]: SpecOf<F[K]> extends { input: z.ZodType } ? K : never;
}[keyof F];
type IsRequired<S> = S extends { required: true } ? true : false;
type ShownAlways<S> = S extends { required: true }
  ? true
  : S extends { default: unknown }
    ? true
    : S extends { shown: true }
      ? true
      : false;

/** The shape of the input object: required fields as declared, the others optional. */
export type InputShape<F extends Fields> = {
  [K in WritableKeys<F>]: SpecOf<F[K]> extends { input: infer I extends z.ZodType }
    ? IsRequired<SpecOf<F[K]>> extends true
      ? I
      : z.ZodOptional<I>
    : never;
};

/** The shape of the view's own fields: optional where the view may leave them out. */
export type ViewShape<F extends Fields> = {
  [K in keyof F]: ShownAlways<SpecOf<F[K]>> extends true ? SpecOf<F[K]>['view'] : z.ZodOptional<SpecOf<F[K]>['view']>;
};

/** The value a field's column holds: dates as Date, unset optional fields as null. */
type ColumnValue<S extends FieldSpec> =
  (S extends { type: 'date' } ? Date : z.infer<S['view']>) | (ShownAlways<S> extends true ? never : null);

/** A stored row's declared columns, typed from the declaration (an entity class merges it in: `interface BrandEntity extends RowOf<typeof Brand> {}`). */
export type RowOf<R extends { fields: Fields }> = {
  -readonly [K in keyof R['fields']]: ColumnValue<SpecOf<R['fields'][K]>>;
};

const AUTHOR_DESCRIPTION =
  "Who created the record: the name of the user the API key acts for (their id when the key names no user_name), or, for a key acting for no user, the key's name followed by ' (API key)'";

/** What every record shows after its own fields. */
const tailShape = {
  version: z.number().int().meta({
    description: 'Incremented on every write; sent as ETag',
    format: 'int32',
    minimum: 1,
    maximum: 2_147_483_647,
    example: 3,
  }),
  created_at: dateTimeSchema,
  updated_at: dateTimeSchema,
  created_by_name: z.string().max(200).optional().meta({
    description: AUTHOR_DESCRIPTION,
    example: 'Maria Silva',
  }),
};

/** The tail of a resource whose every record names its author (`authorShown`). */
const authoredTailShape = {
  ...tailShape,
  created_by_name: z.string().max(200).meta({ description: AUTHOR_DESCRIPTION, example: 'Maria Silva' }),
};

/** List fields every record has besides its own. */
const COMMON_LIST_FIELDS: Record<string, FieldDecl> = {
  version: { type: 'number' },
  created_at: { type: 'date' },
  updated_at: { type: 'date' },
  created_by_name: { type: 'string' },
};

/** What a resource declares: its collection, its fields and how its schemas are named. */
export interface ResourceSpec<F extends Fields> {
  /** The collection (`COLLECTIONS`): names, labels, path and owner come from it. */
  collection: string;
  /** Schema names in the OpenAPI document: `Brand` → Brand, BrandInput, BrandPatch (default: from the collection). */
  schemaId?: string;
  /** The record in a few words, for the schemas' descriptions: `Category: one node of a category tree`. */
  description: string;
  fields: F;
  /**
   * Rules across fields of an input (an attribute's type_config must suit its type), with the
   * issue of each problem at its field's path; a merge patch is checked by them once merged.
   */
  refine?: (input: Record<string, unknown>, ctx: z.RefinementCtx) => void;
  /** List filters that are not fields of the record (`categories_in_children`), checked by their owner. */
  filters?: Record<string, FieldDecl>;
  /** Sort when a list names none (default `-created_at`). */
  defaultSort?: string;
  /**
   * The field after which lists place the common fields (version, dates, creator): after all of
   * the resource's own by default; resources published with another order name the field, so the
   * documented parameters and the allowed-filter messages keep their order.
   */
  commonListFieldsAfter?: string;
  /**
   * Every record shows `created_by_name` (the interface marks it required): records are only
   * created through the API, where every call has an author, and older rows were backfilled.
   */
  authorShown?: true;
  /** Extra view schema options: the view's own description when it differs from `description`. */
  viewDescription?: string;
  /** Descriptions of the input and patch schemas, when the generic wording does not fit. */
  inputDescription?: string;
  patchDescription?: string;
}

/** A resource declared once, and what is derived from the declaration. */
export interface Resource<F extends Fields> {
  collection: string;
  info: CollectionInfo;
  fields: F;
  /** What a caller writes (POST, PUT), patches (PATCH) and reads. */
  schemas: {
    input: z.ZodObject<InputShape<F>, z.core.$strict>;
    patch: z.ZodObject<{ [K in WritableKeys<F>]: z.ZodType }, z.core.$strict>;
    view: z.ZodObject<{ _id: typeof objectIdSchema } & ViewShape<F> & typeof tailShape, z.core.$strict>;
  };
  /** What lists may filter, sort, search and expand. */
  listDecl: ResourceDecl;
  /**
   * The stored columns of a validated input: given values (dates as Date), declared defaults for
   * omitted optional fields, null for the others. Read-only fields and fields without a column of
   * their own are not included (the owner computes or derives them).
   */
  columns(input: Record<string, unknown>): Record<string, unknown>;
  /**
   * A stored row's own fields as the API shows them: dates as ISO strings, unset optional fields
   * left out, fields without a column of their own left to the owner.
   */
  view(row: Record<string, unknown>): Record<string, unknown>;
}

/** A patch schema from a field's: required fields may change but not be removed; optional ones may be nulled. */
function patchSchema(f: Field): z.ZodType {
  const patch = f.spec.patch ?? f.spec.input!;
  return f.spec.required ? patch.optional() : patch.nullable().optional();
}

/** Declares a resource once; its schemas, list declaration and column ↔ view mapping are derived. */
export function defineResource<F extends Fields>(spec: ResourceSpec<F>): Resource<F> {
  const info = collectionInfo(spec.collection);
  const id = spec.schemaId ?? codeNames(info).one;
  const entries = Object.entries(spec.fields);
  const writable = entries.filter(([, f]) => f.writable);
  const inputShape = z.strictObject(
    Object.fromEntries(writable.map(([name, f]) => [name, f.spec.required ? f.spec.input! : f.spec.input!.optional()])),
  );
  const refine = spec.refine;
  const input = (refine ? inputShape.superRefine((value, ctx) => refine(value, ctx)) : inputShape).meta({
    id: `${id}Input`,
    description: spec.inputDescription ?? `${spec.description}, as written by a caller`,
  });
  const patch = z.strictObject(Object.fromEntries(writable.map(([name, f]) => [name, patchSchema(f)]))).meta({
    id: `${id}Patch`,
    description:
      spec.patchDescription ?? `JSON merge patch (RFC 7396) of ${withArticle(spec.description.toLowerCase())}`,
  });
  const view = z
    .strictObject({
      _id: objectIdSchema,
      ...Object.fromEntries(
        entries.map(([name, f]) => [name, f.optionalInView ? f.spec.view.optional() : f.spec.view]),
      ),
      ...(spec.authorShown ? authoredTailShape : tailShape),
    })
    .meta({ id, description: spec.viewDescription ?? spec.description });
  const listed = entries.filter(([, f]) => f.spec.listed !== false);
  const commonAfter = spec.commonListFieldsAfter ?? Object.keys(spec.filters ?? {}).pop() ?? listed.at(-1)?.[0];
  const listDecl = declareResource({
    collection: spec.collection,
    defaultSort: spec.defaultSort,
    fields: Object.fromEntries(
      [
        ['_id', { type: 'id' }] as const,
        ...listed.map(([name, f]) => [name, f.listDecl()] as const),
        ...Object.entries(spec.filters ?? {}),
      ].flatMap((entry) => [entry, ...(entry[0] === commonAfter ? Object.entries(COMMON_LIST_FIELDS) : [])]),
    ),
  });
  const columnOf = (name: string, f: Field) => f.spec.column ?? name;
  const stored = entries.filter(([, f]) => f.spec.stored !== false);
  const storedWritable = stored.filter(([, f]) => f.writable);
  return {
    collection: spec.collection,
    info,
    fields: spec.fields,
    schemas: { input, patch, view } as unknown as Resource<F>['schemas'],
    listDecl,
    columns: (values) =>
      Object.fromEntries(
        storedWritable.map(([name, f]) => [
          columnOf(name, f),
          columnValue(f, values[name]) ?? structuredCloneOf(f.spec.default) ?? null,
        ]),
      ),
    view: (row) =>
      Object.fromEntries(
        stored.flatMap(([name, f]) => {
          const value = row[columnOf(name, f)];
          if ((value === null || value === undefined) && f.optionalInView) return [];
          return [[name, value instanceof Date ? value.toISOString() : value]];
        }),
      ),
  };
}

/** A given value as its column holds it: a date's ISO string as a Date (so its view is the canonical ISO form). */
function columnValue(f: Field, value: unknown): unknown {
  return f.spec.type === 'date' && typeof value === 'string' ? new Date(value) : value;
}

/** A fresh copy of a default (so stored arrays and objects are never shared between records). */
function structuredCloneOf(value: unknown): unknown {
  if (value === undefined || value === null || typeof value !== 'object') return value;
  // Defaults are nearly always [] or {}: a new empty one is the copy (structuredClone costs microseconds a field).
  if (Array.isArray(value) && value.length === 0) return [];
  if (!Array.isArray(value) && Object.keys(value).length === 0) return {};
  return structuredClone(value);
}
