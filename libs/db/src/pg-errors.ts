import { ConflictError, NotFoundError, PimError, ValidationError } from '@pim/errors';
import { QueryFailedError, type DataSource, type EntityManager } from 'typeorm';

/** Names of unique constraints/indexes, mapped to the message a caller should read. */
export type UniqueMessages = Record<string, { message: string; field?: string }>;

/** The 409 of a unique value another record holds (`field`: the value's field, when known). */
export function uniqueValueTaken(message: string, field?: string, cause?: unknown): ConflictError {
  return new ConflictError(message, {
    title: 'Unique value taken',
    solution: 'Use another value, or update the existing record instead',
    details: field ? [{ field, message: 'already taken' }] : undefined,
    ...(cause !== undefined ? { cause } : {}),
  });
}

/**
 * Translates Postgres failures into domain errors (23505 duplicate → 409, 23503 missing
 * reference → 404, 22P02/22001/23502 bad value → 400); anything else is returned unchanged.
 */
export function translatePgError(err: unknown, unique: UniqueMessages = {}): unknown {
  if (err instanceof PimError) return err;
  const driverError =
    err instanceof QueryFailedError ? (err.driverError as Record<string, unknown>) : (err as Record<string, unknown>);
  const code = driverError?.code;
  const constraint = typeof driverError?.constraint === 'string' ? driverError.constraint : undefined;
  switch (code) {
    case '23505': {
      const known = constraint ? unique[constraint] : undefined;
      return uniqueValueTaken(
        known?.message ?? 'A record with the same unique value already exists',
        known?.field,
        err,
      );
    }
    case '23503':
      return new NotFoundError('A referenced record does not exist', { cause: err });
    case '22P02':
    case '22001':
    case '23502':
    case '22003':
      return new ValidationError('A value has the wrong form or size for its field', { cause: err });
    default:
      return err;
  }
}

/** SQLSTATE of a transaction Postgres failed to break a deadlock. */
const DEADLOCK = '40P01';

/** Whether Postgres broke a deadlock by failing this transaction: running it again may succeed. */
export function isDeadlock(err: unknown): boolean {
  const e = err as { driverError?: { code?: string }; code?: string } | undefined;
  return (e?.driverError?.code ?? e?.code) === DEADLOCK;
}

/** Runs `work` in a transaction, again (up to `attempts` times in all) when Postgres breaks a deadlock with it. */
export async function transactionRetryingDeadlocks<T>(
  ds: DataSource,
  work: (m: EntityManager) => Promise<T>,
  attempts = 3,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ds.transaction(work);
    } catch (err) {
      if (!isDeadlock(err) || attempt >= attempts) throw err;
    }
  }
}
