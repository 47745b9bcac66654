import { ObjectId } from 'bson';
import { ValidationError } from '@pim/errors';

const OBJECT_ID = /^[0-9a-f]{24}$/;

/** A new id in MongoDB ObjectId layout: 24 lowercase hex characters, ordered by creation time. */
export function newId(): string {
  return new ObjectId().toHexString();
}

/** Whether a value is a well-formed id (24 lowercase hex characters). */
export function isId(value: unknown): value is string {
  return typeof value === 'string' && OBJECT_ID.test(value);
}

/** The creation time encoded in an id. */
export function idTimestamp(id: string): Date {
  return new ObjectId(id).getTimestamp();
}

/** The id itself when well-formed; otherwise a ValidationError naming the resource whose id it should be. */
export function requireId(value: string, resource: string, field = '_id'): string {
  if (isId(value)) return value;
  throw new ValidationError(`'${value}' is not a valid id`, {
    title: 'Invalid id',
    solution: `Use the _id of a ${resource}: 24 lowercase hexadecimal characters`,
    details: [{ field, message: 'must be 24 lowercase hexadecimal characters' }],
  });
}
