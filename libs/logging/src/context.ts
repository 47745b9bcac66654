import { AsyncLocalStorage } from 'node:async_hooks';

/** Who made a call: filled from the API key at the gateway, carried in gRPC metadata. */
export interface Actor {
  user_id?: string;
  user_name?: string;
}

/** What travels with one request through every log line and downstream call. */
export interface RequestContext {
  requestId: string;
  actor?: Actor;
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
