/**
 * Errors that say the database (or another store) cannot take the request now, rather than that the
 * request or our code is wrong: too many connections, a server shutting down or starting, a broken
 * or refused connection, a pool that gave no connection in time. They answer 503 with Retry-After,
 * not 500: the caller's retry is right and nothing was written.
 */

/** SQLSTATE classes and codes of "not now" (PostgreSQL appendix A). */
const UNAVAILABLE_SQLSTATE_CLASS = /^(08|53)[0-9A-Z]{3}$/; // connection exception, insufficient resources
const UNAVAILABLE_SQLSTATES = new Set([
  '57P01', // admin_shutdown: the server is stopping (or our backend was terminated)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: the server is starting up or in recovery
  '57P05', // idle_session_timeout
]);
/** Socket-level failures of a connection to the store. */
const UNAVAILABLE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND']);
/** Messages of node-postgres's pool and client that carry no code. */
const UNAVAILABLE_MESSAGES = [
  /^timeout exceeded when trying to connect$/i,
  /^Connection terminated/i,
  /^Client has encountered a connection error and is not queryable$/i,
];

/** Seconds a caller should wait before retrying after such an error. */
export const STORE_RETRY_AFTER_SECONDS = 2;

/** Whether `err` (or the driver error or cause it wraps) says the store cannot take the request now. */
export function isStoreUnavailable(err: unknown, depth = 0): boolean {
  if (depth > 4 || typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; message?: unknown; driverError?: unknown; cause?: unknown };
  if (typeof e.code === 'string') {
    if (UNAVAILABLE_SQLSTATE_CLASS.test(e.code) || UNAVAILABLE_SQLSTATES.has(e.code)) return true;
    if (UNAVAILABLE_ERRNOS.has(e.code)) return true;
  }
  if (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.some((re) => re.test(e.message as string))) return true;
  return isStoreUnavailable(e.driverError, depth + 1) || isStoreUnavailable(e.cause, depth + 1);
}
