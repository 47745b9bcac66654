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

/** Throws 403 unless the caller holds the scope. */
export function authorize(principal: Principal, needed: Scope): void {
  if (!allows(principal.scopes, needed)) {
    throw new AuthorizationError(`This API key lacks the scope '${needed}'`, {
      solution: `Use a key that carries '${needed}'${needed === 'admin' ? '' : " or 'admin'"}; an admin can grant it at /api/v1/api-keys`,
    });
  }
}
