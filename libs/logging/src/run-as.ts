import { currentContext, runWithContext, type Actor } from './context';

/**
 * Who a job runs as: the caller of the request that set it to work (an export's creation, an
 * import's start, a bulk publication), as its request context held them. Stored on the job's
 * record (`run_as`, never shown by the API) so a worker of any replica, on any try, calls other
 * apps as that caller: it sees the products their users groups see and writes as them. NULL:
 * unrestricted (no caller, or rows written before the column).
 */
export type RunAs = Actor;

/** The current request's caller as a job keeps it, or null when the request has none. */
export function currentRunAs(): RunAs | null {
  const actor = currentContext()?.actor;
  if (!actor) return null;
  const { user_id, user_name, access } = actor;
  const runAs: RunAs = {
    ...(user_id !== undefined ? { user_id } : {}),
    ...(user_name !== undefined ? { user_name } : {}),
    ...(access !== undefined
      ? { access: { user_id: access.user_id, all_products: access.all_products, groups: [...access.groups] } }
      : {}),
  };
  return Object.keys(runAs).length > 0 ? runAs : null;
}

/**
 * Runs a job's work as its stored caller: every call it makes to another app carries the request
 * id `<kind>:<id>` and that caller (none when `runAs` is null: unrestricted).
 */
export function runJobAs<T>(kind: string, id: string, runAs: RunAs | null, fn: () => T): T {
  return runWithContext({ requestId: `${kind}:${id}`, ...(runAs ? { actor: runAs } : {}) }, fn);
}
