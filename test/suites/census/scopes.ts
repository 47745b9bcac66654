// Scopes as the document states them: which a key may carry, and one that lacks an operation's.
import { resolved, type OpenApiDocument } from './operations';

/** The scopes a key may carry, as the document's `ApiKeyInput.scopes` enumerates them. */
export function grantableScopes(doc: OpenApiDocument): string[] {
  const scopes = resolved(doc, doc.components.schemas.ApiKeyInput)?.properties?.scopes?.items?.enum;
  if (!scopes || scopes.length === 0) throw new Error('the document enumerates no scope for ApiKeyInput.scopes');
  return scopes as string[];
}

/** Whether a key with `granted` may call an operation needing `needed` (write includes read; admin everything). */
export function satisfies(granted: string, needed: string): boolean {
  if (needed === 'authenticated' || granted === 'admin' || granted === needed) return true;
  return needed.endsWith(':read') && granted === needed.replace(/:read$/, ':write');
}

/**
 * A scope a key may carry that does not let it call an operation needing `needed`: the first
 * `<collection>:read` of another collection (so the census needs few keys). Undefined for
 * `authenticated` operations, which any key may call.
 */
export function lackingScope(needed: string, grantable: readonly string[]): string | undefined {
  if (needed === 'authenticated') return undefined;
  const lacking = grantable.find((s) => s.endsWith(':read') && !satisfies(s, needed));
  if (!lacking) throw new Error(`no grantable scope lacks '${needed}'`);
  return lacking;
}
