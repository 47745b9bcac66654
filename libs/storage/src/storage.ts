import type { Readable } from 'node:stream';
import { ValidationError } from '@pim/errors';

/** What a stored file is: its key and size. */
export interface StoredFile {
  key: string;
  bytes: number;
}

/**
 * Where uploaded and generated files live (imports, exports), behind one interface so a local
 * directory and an object store are interchangeable. Files go in and out as streams, never whole
 * in memory; a file is visible under its key only once completely written.
 */
export interface FileStorage {
  /**
   * Streams `source` into the file `key`, replacing any file of that key once complete. Past
   * `maxBytes` the write stops, nothing is kept and the promise rejects with a 413 error; a source
   * that fails leaves nothing either.
   */
  put(key: string, source: Readable, opts: { maxBytes: number }): Promise<StoredFile>;
  /** The file's bytes as a stream; a 404 error when there is none. */
  get(key: string): Promise<Readable>;
  /** The file's size, or undefined when there is none. */
  stat(key: string): Promise<StoredFile | undefined>;
  /** Removes the file; removing a missing one is not an error. */
  remove(key: string): Promise<void>;
}

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/**
 * Checks a key: `/`-separated segments of letters, digits, `.`, `_` and `-` (not starting with a
 * dot or dash), at most 500 characters — so a key can never leave the storage's root.
 */
export function checkKey(key: string): string {
  const segments = typeof key === 'string' ? key.split('/') : [];
  if (typeof key !== 'string' || key.length === 0 || key.length > 500 || !segments.every((s) => SEGMENT.test(s))) {
    throw new ValidationError(`'${String(key).slice(0, 100)}' is not a valid file key`, {
      title: 'Invalid file key',
      solution:
        'Use segments of letters, digits, dots, underscores and dashes separated by slashes, such as imports/2026/file.xlsx',
      details: [{ field: 'key', message: 'must be segments of [A-Za-z0-9._-] separated by /, at most 500 characters' }],
    });
  }
  return key;
}
