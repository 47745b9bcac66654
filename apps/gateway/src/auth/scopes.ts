import { AuthorizationError } from '@pim/errors';
import { collectionNames } from '@pim/resources';

/**
 * What a route needs: `<collection>:read`, `<collection>:write` (which includes read), `admin`
 * (everything), or `authenticated` (any valid key).
 */
export type Scope = `${string}:read` | `${string}:write` | 'admin' | 'authenticated';

/** The caller behind an API key. */
export interface Principal {
  keyId: string;
  prefix: string;
  scopes: string[];
  user_id?: string;
  user_name?: string;
  /** The key's own name: the author of what it writes when it acts for no user. */
  key_name: string;
}

const SCOPE = /^(admin|[a-z_]+:(read|write))$/;

/** Whether a string is a scope a key may carry (a known collection's read/write, or admin). */
export function isGrantableScope(s: string): boolean {
  if (!SCOPE.test(s)) return false;
  if (s === 'admin') return true;
  return collectionNames().includes(s.split(':')[0]);
}

/** Every scope a key may carry, for messages and the OpenAPI document. */
export function grantableScopes(): string[] {
  return ['admin', ...collectionNames().flatMap((c) => [`${c}:read`, `${c}:write`])];
}

/** Whether the caller's scopes satisfy the one a route needs. */
export function allows(granted: readonly string[], needed: Scope): boolean {
  if (needed === 'authenticated' || granted.includes('admin')) return true;
  if (granted.includes(needed)) return true;
  if (needed.endsWith(':read')) return granted.includes(needed.replace(/:read$/, ':write'));
  return false;
}

/**
 * Collections that are platform-wide configuration, each with why (docs/decisions/webhooks.md):
 * their scopes count only on an unrestricted key, since what they hold or send is not filtered by
 * what a user may see.
 */
export const PLATFORM_WIDE: Readonly<Record<string, string>> = {
  webhooks:
    'there is one webhook per collection, its deliveries carry every event whole (every user’s records, every attribute value, whatever users groups and attribute groups hide) and its delivery log keeps the receivers’ answers',
};

/**
 * Whether a key acts for a user whom users groups and attribute groups may restrict: bound to a
 * user and without `admin` (full product access included: attribute groups still hide values).
 */
export function isRestricted(principal: Pick<Principal, 'scopes' | 'user_id'>): boolean {
  return Boolean(principal.user_id) && !principal.scopes.includes('admin');
}

/** The platform-wide collection a scope is of, if it is one (`webhooks:write` → `webhooks`). */
const platformWideOf = (scope: Scope): string | undefined => {
  const collection = scope.split(':')[0];
  return scope.includes(':') && Object.hasOwn(PLATFORM_WIDE, collection) ? collection : undefined;
};

/** What a route needs, as its OpenAPI description says it. */
export function scopeNote(scope: Scope): string {
  if (scope === 'admin' || scope === 'authenticated') return `Needs scope \`${scope}\`.`;
  const wide = platformWideOf(scope);
  const needs = `Needs scope \`${scope}\` (or \`admin\`)`;
  if (!wide) return `${needs}.`;
  return `${needs} on an unrestricted key: one with \`admin\`, or an integration's key bound to no user. ${wide[0].toUpperCase()}${wide.slice(1)} are platform-wide configuration: ${PLATFORM_WIDE[wide]}. A key bound to a user without \`admin\` gets 403, even with the scope.`;
}

/**
 * Throws 403 unless the caller holds the scope — and, for a platform-wide collection's scope,
 * unless the key is unrestricted: a user's key could otherwise point the collection's one webhook
 * at itself and receive what its user may not see, taking it from its owner on the way.
 */
export function authorize(principal: Principal, needed: Scope): void {
  if (!allows(principal.scopes, needed)) {
    throw new AuthorizationError(`This API key lacks the scope '${needed}'`, {
      solution: `Use a key that carries '${needed}'${needed === 'admin' ? '' : " or 'admin'"}; an admin can grant it at /api/v1/api-keys`,
    });
  }
  const wide = platformWideOf(needed);
  if (wide && isRestricted(principal)) {
    throw new AuthorizationError(
      `This API key is bound to a user (user_id ${principal.user_id}) and lacks 'admin': ${wide} are platform-wide configuration, read and written only with an unrestricted key, because ${PLATFORM_WIDE[wide]}`,
      {
        title: 'Not allowed for a user’s key',
        solution: `Use a key with the 'admin' scope, or an integration's key bound to no user (created at /api/v1/api-keys without user_id) that carries '${needed}'`,
      },
    );
  }
}
