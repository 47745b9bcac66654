import { ValidationError } from '@pim/errors';
import { declareResource } from './resource.declaration';

/** A declaration with one field of every kind, shared by the unit tests. */
export const things = declareResource({
  collection: 'things',
  fields: {
    _id: { type: 'id' },
    collection: { type: 'string', required: true },
    url: { type: 'string', searchable: true },
    enabled: { type: 'boolean' },
    version: { type: 'number' },
    created_at: { type: 'date' },
    name: { type: 'translate', searchable: true },
    tags: { type: 'string[]' },
    headers: { type: 'array' },
    meta: { type: 'object', filterable: true },
    brand_id: { type: 'id', expand: { as: 'brand', collection: 'brands' } },
    category_ids: { type: 'id[]', expand: { as: 'categories', collection: 'categories' } },
  },
});

/** The ValidationError a call throws (fails the test when it throws nothing or something else). */
export function validationErrorOf(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationError) return err;
    throw err;
  }
  throw new Error('expected a ValidationError, but nothing was thrown');
}
