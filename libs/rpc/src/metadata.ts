import { createHash } from 'node:crypto';
import { Metadata } from '@grpc/grpc-js';
import type { Actor, ProductAccess, RequestContext } from '@pim/logging';

/** Metadata key of the request id that started a chain of calls. */
export const REQUEST_ID_KEY = 'x-request-id';
/** Metadata key of the caller's identity (JSON, binary so non-ASCII names survive). */
export const ACTOR_KEY = 'pim-actor-bin';

/** Metadata key of a call's idempotency token (64 hex digits): see `idempotentService`. */
export const IDEMPOTENCY_TOKEN_KEY = 'pim-idempotency-token';

const TOKEN = /^[0-9a-f]{64}$/;

/**
 * The token of the next call to `path` (`/pkg.Service/Method`) a request with an idempotency token
 * makes: derived from the request's token, the method and how many calls of it the request made
 * before, so the n-th call of a method is the same call on every retry of the request.
 */
export function nextCallToken(idempotency: NonNullable<RequestContext['idempotency']>, path: string): string {
  const n = (idempotency.calls.get(path) ?? 0) + 1;
  idempotency.calls.set(path, n);
  return createHash('sha256').update(`${idempotency.token}\n${path}\n${n}`).digest('hex');
}

/**
 * Writes a request context into outgoing call metadata; with `path`, the call's idempotency token
 * too when the request has one.
 */
export function contextToMetadata(ctx: RequestContext | undefined, md = new Metadata(), path?: string): Metadata {
  if (!ctx) return md;
  md.set(REQUEST_ID_KEY, ctx.requestId);
  if (ctx.actor) md.set(ACTOR_KEY, Buffer.from(JSON.stringify(ctx.actor), 'utf8'));
  if (ctx.idempotency && path) md.set(IDEMPOTENCY_TOKEN_KEY, nextCallToken(ctx.idempotency, path));
  return md;
}

/** The idempotency token a call carries, when well-formed. */
export function callTokenOf(md: Metadata): string | undefined {
  const raw = md.get(IDEMPOTENCY_TOKEN_KEY)[0];
  return typeof raw === 'string' && TOKEN.test(raw) ? raw : undefined;
}

/** Most users groups one access may list (the users groups' own bound). */
const MAX_GROUPS = 1_000;

/**
 * A caller's product access as sent, or undefined when there is none. Malformed access is never
 * read as none — that would widen it — but as access to no product.
 */
function accessOf(raw: unknown): ProductAccess | undefined {
  if (raw === undefined || raw === null) return undefined;
  const a = raw as Partial<ProductAccess>;
  const groups = Array.isArray(a.groups) ? a.groups.filter((g): g is string => typeof g === 'string') : [];
  const wellFormed = typeof a.user_id === 'string' && Array.isArray(a.groups) && groups.length === a.groups.length;
  return {
    user_id: typeof a.user_id === 'string' ? a.user_id : '',
    all_products: wellFormed && a.all_products === true,
    groups: wellFormed ? groups.slice(0, MAX_GROUPS) : [],
  };
}

/** Reads the request context a caller sent; a missing request id gets a fresh one. */
export function metadataToContext(md: Metadata, newRequestId: () => string): RequestContext {
  const rid = md.get(REQUEST_ID_KEY)[0];
  const requestId = typeof rid === 'string' && rid.length > 0 && rid.length <= 200 ? rid : newRequestId();
  const raw = md.get(ACTOR_KEY)[0];
  let actor: Actor | undefined;
  if (raw !== undefined) {
    try {
      const parsed = JSON.parse(Buffer.isBuffer(raw) ? raw.toString('utf8') : String(raw)) as Actor;
      const access = accessOf(parsed.access);
      actor = {
        user_id: parsed.user_id ? String(parsed.user_id) : undefined,
        user_name: parsed.user_name ? String(parsed.user_name) : undefined,
        key_name: parsed.key_name ? String(parsed.key_name) : undefined,
        ...(access ? { access } : {}),
      };
    } catch {
      actor = undefined;
    }
  }
  const token = callTokenOf(md);
  return { requestId, actor, ...(token ? { idempotency: { token, calls: new Map<string, number>() } } : {}) };
}
