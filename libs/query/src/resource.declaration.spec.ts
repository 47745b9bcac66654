import {
  declareResource,
  expandables,
  filterableFields,
  opsFor,
  searchableFields,
  sortableFields,
  type FieldDecl,
  type ResourceDecl,
} from './index';
import { things } from './things.fixture';

const base: Record<string, FieldDecl> = { _id: { type: 'id' }, created_at: { type: 'date' } };
const declare = (fields: Record<string, FieldDecl>, extra: Partial<ResourceDecl> = {}) =>
  declareResource({ collection: 'c', fields: { ...base, ...fields }, ...extra });

describe('declareResource', () => {
  it('fills every default from the field type', () => {
    expect(things.defaultSort).toBe('-created_at');
    expect(things.fields.collection).toEqual({
      type: 'string',
      required: true,
      searchable: false,
      filterable: true,
      sortable: true,
      column: 'collection',
    });
    expect(things.fields.name).toMatchObject({ filterable: false, sortable: false, searchable: true });
    expect(things.fields.tags).toMatchObject({ filterable: true, sortable: false });
    expect(things.fields.headers).toMatchObject({ filterable: false, sortable: false });
    expect(things.fields.meta).toMatchObject({ filterable: true, sortable: false });
  });

  it('keeps explicit flags and column names', () => {
    const d = declare({ code: { type: 'string', sortable: false, filterable: false, column: 'the_code' } });
    expect(d.fields.code).toMatchObject({ sortable: false, filterable: false, column: 'the_code' });
  });

  it('derives the lists the parser and documentation use', () => {
    expect(filterableFields(things)).toEqual([
      '_id',
      'collection',
      'url',
      'enabled',
      'version',
      'created_at',
      'tags',
      'meta',
      'brand_id',
      'category_ids',
    ]);
    expect(sortableFields(things)).toEqual([
      '_id',
      'collection',
      'url',
      'enabled',
      'version',
      'created_at',
      'brand_id',
    ]);
    expect(searchableFields(things)).toEqual(['url', 'name']);
    expect(expandables(things)).toEqual([
      { as: 'brand', field: 'brand_id', collection: 'brands' },
      { as: 'categories', field: 'category_ids', collection: 'categories' },
    ]);
  });

  it('lets a list of ids or of links expand in place under its own name', () => {
    const d = declare({
      categories: { type: 'id[]', expand: { as: 'categories', collection: 'categories' } },
      catalogs: { type: 'array', expand: { as: 'catalogs', collection: 'catalogs' } },
    });
    expect(expandables(d)).toEqual([
      { as: 'categories', field: 'categories', collection: 'categories' },
      { as: 'catalogs', field: 'catalogs', collection: 'catalogs' },
    ]);
    expect(d.fields.catalogs).toMatchObject({ filterable: false, sortable: false });
  });

  it('gives each type its operators', () => {
    expect(opsFor('string')).toEqual(['eq', 'in', 'nin', 'ne', 'exists']);
    expect(opsFor('number')).toEqual(['eq', 'in', 'nin', 'ne', 'exists', 'gt', 'gte', 'lt', 'lte']);
    expect(opsFor('id')).toContain('gt');
    expect(opsFor('date')).toContain('lte');
    expect(opsFor('boolean')).not.toContain('gt');
    expect(opsFor('id[]')).not.toContain('gt');
    expect(opsFor('translate')).toEqual(['exists']);
  });

  it.each<[string, () => unknown, RegExp]>([
    [
      'an empty collection',
      () => declareResource({ collection: '', fields: base }),
      /collection must be a non-empty string/,
    ],
    ['no fields', () => declareResource({ collection: 'c', fields: {} }), /at least one field/],
    ['a bad field name', () => declare({ 'a.b': { type: 'string' } }), /field name 'a.b'/],
    ['a reserved field name', () => declare({ sort: { type: 'string' } }), /'sort' is a reserved query parameter/],
    [
      'a name that clashes with a filter',
      () => declare({ price: { type: 'number' }, price_gte: { type: 'number' } }),
      /'price_gte' clashes/,
    ],
    ['an unknown type', () => declare({ x: { type: 'money' as FieldDecl['type'] } }), /unknown type 'money'/],
    ['a sortable array', () => declare({ tags: { type: 'string[]', sortable: true } }), /cannot be sortable/],
    ['a searchable number', () => declare({ n: { type: 'number', searchable: true } }), /cannot be searchable/],
    [
      'an expand on a string',
      () => declare({ brand: { type: 'string', expand: { as: 'b', collection: 'brands' } } }),
      /not of type id/,
    ],
    [
      'an expand named like a field',
      () =>
        declare({ code: { type: 'string' }, brand_id: { type: 'id', expand: { as: 'code', collection: 'brands' } } }),
      /also a field name/,
    ],
    [
      'an id expanded in place',
      () => declare({ brand_id: { type: 'id', expand: { as: 'brand_id', collection: 'brands' } } }),
      /cannot expand in place/,
    ],
    [
      'an array of links expanded under another name',
      () => declare({ links: { type: 'array', expand: { as: 'records', collection: 'r' } } }),
      /only in place/,
    ],
    [
      'an expand named like another field expanding in place',
      () =>
        declare({
          tags: { type: 'id[]', expand: { as: 'tags', collection: 't' } },
          tag_ids: { type: 'id[]', expand: { as: 'tags', collection: 't' } },
        }),
      /also a field name/,
    ],
    [
      'an expand name used twice',
      () =>
        declare({
          a_id: { type: 'id', expand: { as: 'x', collection: 'a' } },
          b_id: { type: 'id', expand: { as: 'x', collection: 'b' } },
        }),
      /used twice/,
    ],
    [
      'no _id',
      () => declareResource({ collection: 'c', fields: { created_at: { type: 'date' } } }),
      /must declare '_id'/,
    ],
    [
      'a default sort on a missing field',
      () => declareResource({ collection: 'c', fields: { _id: { type: 'id' } } }),
      /defaultSort '-created_at' names 'created_at'/,
    ],
    [
      'a default sort on an unsortable field',
      () => declare({ tags: { type: 'string[]' } }, { defaultSort: 'tags' }),
      /not a sortable field/,
    ],
  ])('refuses %s', (_what, fn, message) => {
    expect(fn).toThrow(message);
  });

  it('accepts a path into an object (customer.email) stored in a column of its own', () => {
    const decl = declare({ 'customer.email': { type: 'string', column: 'customer_email' } });
    expect(decl.fields['customer.email']).toMatchObject({ type: 'string', column: 'customer_email', filterable: true });
  });

  it('accepts a default sort of several fields', () => {
    expect(declare({ code: { type: 'string' } }, { defaultSort: 'code,-created_at' }).defaultSort).toBe(
      'code,-created_at',
    );
  });
});
