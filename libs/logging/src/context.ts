import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What a caller bound to a user may see of the products, read from the users groups on each
 * request: `groups` are the live users groups listing the user, `all_products` whether one of
 * them sees every product. A caller without it (an admin key, a key bound to no user, the
 * platform's own background work) is not restricted (docs/decisions/access.md).
 */
export interface ProductAccess {
  user_id: string;
  all_products: boolean;
  groups: string[];
}

/** Who made a call: filled from the API key at the gateway, carried in gRPC metadata. */
export interface Actor {
  user_id?: string;
  user_name?: string;
  /** The API key's name: the author of what a key acting for no user writes. */
  key_name?: string;
  /** Set when the caller is restricted by users groups; absent means unrestricted. */
  access?: ProductAccess;
}

/** What travels with one request through every log line and downstream call. */
export interface RequestContext {
  requestId: string;
  actor?: Actor;
  /**
   * The request's idempotency token (from its Idempotency-Key), and how many calls of each gRPC
   * method it has made: each outgoing call carries a token of its own derived from both, the same
   * on a retry of the request (@pim/rpc metadata).
   */
  idempotency?: { token: string; calls: Map<string, number> };
  /**
   * When the caller stops waiting: the gateway's request time-out, or the deadline of
   * the gRPC call being served. Calls made for the request end by then too, and a write
   * transaction still open then is not committed (@pim/db `CallCommitGuard`): the caller
   * was told the request failed, so nothing of it is kept.
   */
  deadline?: Date;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs fn with the given request context visible to everything it calls. */
export function runWithContext<T>(ctx: RequestContext, fn: () => T): T {
  return storage.run(ctx, fn);
}

/** The context of the request being served, if any. */
export function currentContext(): RequestContext | undefined {
  return storage.getStore();
}

/**
 * Who a write is recorded as made by (`created_by_name`, `deleted_by`): the user the API key acts
 * for, by name, else by id; a key acting for no user (an integration's) by its own name, marked
 * `(API key)` so it never reads as a person. Null only for the platform's own background work.
 */
export function authorName(actor: Actor | undefined = storage.getStore()?.actor): string | null {
  if (!actor) return null;
  if (actor.user_name) return actor.user_name;
  if (actor.user_id) return actor.user_id;
  return actor.key_name ? `${actor.key_name} (API key)`.slice(0, 200) : null;
}

/** The current caller's product access, when restricted by users groups (absent: unrestricted). */
export function currentAccess(): ProductAccess | undefined {
  return storage.getStore()?.actor?.access;
}
