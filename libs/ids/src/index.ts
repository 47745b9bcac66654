import { ObjectId } from 'bson';

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
