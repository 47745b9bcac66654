/** The types a declared field can have; they decide the operators, the value checks and the SQL. */
export type FieldType =
  'string' | 'number' | 'boolean' | 'date' | 'id' | 'translate' | 'string[]' | 'id[]' | 'object' | 'array';

/** Every field type, for checks at run time. */
export const FIELD_TYPES: readonly FieldType[] = [
  'string',
  'number',
  'boolean',
  'date',
  'id',
  'translate',
  'string[]',
  'id[]',
  'object',
  'array',
];

/** One field of a resource as the list query language sees it. */
export interface FieldDecl {
  type: FieldType;
  /** Informational (the interface's Req column). */
  required?: boolean;
  /** Included in `_search` (the interface's Srch column). */
  searchable?: boolean;
  /** Default: true for scalars, ids and arrays of strings/ids; false for object, array and translate. */
  filterable?: boolean;
  /** Default: true for string, number, boolean, date and id; false otherwise. */
  sortable?: boolean;
  /** DB column name when it differs from the field name. */
  column?: string;
  /**
   * The related record embedded beside this id (`brand_id` → `brand` from `brands`). A list of ids
   * (`id[]`) or of `{_id, …}` links (`array`) may expand in place, `as` being its own name
   * (`categories` → `categories`): the reader decides how the records go into the list.
   */
  expand?: { as: string; collection: string };
  /**
   * Values are stored in Unicode NFC (codes, names that identify): filter values are normalized to
   * NFC before they are compared, so text typed in another form (NFD) finds them.
   */
  normalized?: boolean;
}

/** A resource's fields, declared once; parser, SQL and envelope derive from it. */
export interface ResourceDecl {
  collection: string;
  fields: Record<string, FieldDecl>;
  /** Sort used when the query names none, in the `sort` parameter's syntax. Default `-created_at`. */
  defaultSort?: string;
}

/** Query parameters that are never filters. */
export const RESERVED_PARAMS: readonly string[] = ['page', 'limit', 'skip', 'sort', '_search', 'expand'];

/** Sort used when neither the query nor the declaration names one. */
export const DEFAULT_SORT = '-created_at';

/** The field every record has and every sort ends with, so pages are stable. */
export const ID_FIELD = '_id';

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A path into a nested object (`customer.email`): allowed for a field stored in a column of its own. */
const FIELD_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$/;
const FILTER_SUFFIXES = ['eq', 'in', 'nin', 'ne', 'gt', 'gte', 'lt', 'lte', 'exists'];
const JSON_TYPES: readonly FieldType[] = ['object', 'array', 'translate'];
const SORTABLE_TYPES: readonly FieldType[] = ['string', 'number', 'boolean', 'date', 'id'];
const SEARCHABLE_TYPES: readonly FieldType[] = ['string', 'translate', 'string[]'];

/** Whether a field may be filtered (its own flag, else its type's default). */
export function isFilterable(field: FieldDecl): boolean {
  return field.filterable ?? !JSON_TYPES.includes(field.type);
}

/** Whether a field may be sorted on (its own flag, else its type's default). */
export function isSortable(field: FieldDecl): boolean {
  return field.sortable ?? SORTABLE_TYPES.includes(field.type);
}

/** Whether a field is stored as jsonb (only `_exists` applies to it). */
export function isJsonType(type: FieldType): boolean {
  return JSON_TYPES.includes(type);
}

/** Whether a field is a Postgres array (`=` means contains). */
export function isArrayType(type: FieldType): boolean {
  return type === 'string[]' || type === 'id[]';
}

/** The DB column of a field. */
export function columnOf(decl: ResourceDecl, field: string): string {
  return decl.fields[field]?.column ?? field;
}

/** Names of the fields that may be filtered, in declaration order. */
export function filterableFields(decl: ResourceDecl): string[] {
  return Object.entries(decl.fields)
    .filter(([, f]) => isFilterable(f))
    .map(([name]) => name);
}

/** Names of the fields that may be sorted on, in declaration order. */
export function sortableFields(decl: ResourceDecl): string[] {
  return Object.entries(decl.fields)
    .filter(([, f]) => isSortable(f))
    .map(([name]) => name);
}

/** Names of the fields `_search` looks in, in declaration order. */
export function searchableFields(decl: ResourceDecl): string[] {
  return Object.entries(decl.fields)
    .filter(([, f]) => f.searchable === true)
    .map(([name]) => name);
}

/** The `expand` names a resource accepts, with the field and collection each comes from. */
export function expandables(decl: ResourceDecl): { as: string; field: string; collection: string }[] {
  return Object.entries(decl.fields)
    .filter(([, f]) => f.expand !== undefined)
    .map(([name, f]) => ({ as: f.expand!.as, field: name, collection: f.expand!.collection }));
}

/**
 * Checks a declaration and returns it with every default filled in. A bad declaration is a
 * programming mistake, so it throws a plain Error when the module loads, not a 400.
 */
export function declareResource(decl: ResourceDecl): ResourceDecl {
  const where = `declareResource(${JSON.stringify(decl?.collection)})`;
  const fail = (msg: string): never => {
    throw new Error(`${where}: ${msg}`);
  };
  if (typeof decl?.collection !== 'string' || decl.collection.length === 0)
    fail('collection must be a non-empty string');
  const entries = Object.entries(decl.fields ?? {});
  if (entries.length === 0) fail('fields must declare at least one field');

  const names = new Set(entries.map(([name]) => name));
  const expandNames = new Set<string>();
  const fields: Record<string, FieldDecl> = {};
  for (const [name, f] of entries) {
    if (FIELD_PATH.test(name)) {
      if (f.column === undefined)
        fail(`field name '${name}' is a path into an object: it needs the column that holds it`);
    } else if (!FIELD_NAME.test(name)) fail(`field name '${name}' must be letters, digits and underscores`);
    if (RESERVED_PARAMS.includes(name)) fail(`field name '${name}' is a reserved query parameter`);
    const cut = name.lastIndexOf('_');
    // `price_gte` beside `price` would make the query `price_gte=` ambiguous.
    if (cut > 0 && FILTER_SUFFIXES.includes(name.slice(cut + 1)) && names.has(name.slice(0, cut))) {
      fail(`field name '${name}' clashes with the filter '${name.slice(0, cut)}' + '_${name.slice(cut + 1)}'`);
    }
    if (!FIELD_TYPES.includes(f?.type)) fail(`field '${name}' has unknown type '${String(f?.type)}'`);
    if (f.column !== undefined && (typeof f.column !== 'string' || f.column.length === 0)) {
      fail(`field '${name}' has an empty column name`);
    }
    if (f.sortable === true && !SORTABLE_TYPES.includes(f.type))
      fail(`field '${name}' of type ${f.type} cannot be sortable`);
    if (f.searchable === true && !SEARCHABLE_TYPES.includes(f.type)) {
      fail(`field '${name}' of type ${f.type} cannot be searchable (only ${SEARCHABLE_TYPES.join(', ')})`);
    }
    if (f.expand !== undefined) {
      const { as, collection } = f.expand;
      const inPlace = as === name;
      if (f.type !== 'id' && f.type !== 'id[]' && !(f.type === 'array' && inPlace)) {
        fail(`field '${name}' expands but is not of type id or id[] (an array of links expands only in place)`);
      }
      if (typeof as !== 'string' || !FIELD_NAME.test(as)) fail(`field '${name}' expands as an invalid name`);
      // In place only for lists: an id turned into an object would change what the field is.
      if (inPlace && f.type === 'id')
        fail(`field '${name}' of type id cannot expand in place (name it like the record, e.g. brand_id → brand)`);
      if (!inPlace && names.has(as)) fail(`expand name '${as}' of field '${name}' is also a field name`);
      if (expandNames.has(as)) fail(`expand name '${as}' is used twice`);
      if (typeof collection !== 'string' || collection.length === 0)
        fail(`field '${name}' expands from an empty collection`);
      expandNames.add(as);
    }
    fields[name] = {
      ...f,
      required: f.required ?? false,
      searchable: f.searchable ?? false,
      filterable: isFilterable(f),
      sortable: isSortable(f),
      column: f.column ?? name,
    };
  }

  const id = fields[ID_FIELD];
  if (!id || id.type !== 'id') fail(`must declare '${ID_FIELD}' of type id (sorts end with it so pages are stable)`);

  const defaultSort = decl.defaultSort ?? DEFAULT_SORT;
  const items = defaultSort.split(',').map((s) => s.trim());
  const seen = new Set<string>();
  for (const item of items) {
    const field = item.replace(/^[-+]/, '');
    if (!fields[field]?.sortable) fail(`defaultSort '${defaultSort}' names '${field}', which is not a sortable field`);
    if (seen.has(field)) fail(`defaultSort '${defaultSort}' names '${field}' twice`);
    seen.add(field);
  }

  return { collection: decl.collection, fields, defaultSort };
}
