import type { NextFunction, Request, Response } from 'express';
import { toPimError, type PimError } from '@pim/errors';
import { currentContext } from '@pim/logging';
import type { ApiKeyService } from './api-key.service';
import type { Principal } from './scopes';
import { productAccessOf, type UserAccessLookup } from './access';
import type { RateLimiter, RateLimitState } from '../rate-limit/rate-limit';

function bearer(req: Request): string | undefined {
  const h = req.get('authorization');
  if (!h) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : h;
}

function setRateLimitHeaders(res: Response, s: RateLimitState): void {
  res.setHeader('RateLimit-Limit', String(s.limit));
  res.setHeader('RateLimit-Remaining', String(s.remaining));
  res.setHeader('RateLimit-Reset', String(s.resetSeconds));
  res.setHeader('RateLimit-Policy', `${s.limit};w=60`);
}

/**
 * The door of /api/v1: identifies the caller by API key, counts the request against the
 * caller's rate limit (per key; per IP when there is no valid key, so guessing keys is limited
 * too), then lets it through or answers 401/429. The caller's identity joins the request
 * context, so gRPC calls carry it to the owning app — with, for a key bound to a user, the
 * user's product access read now from the users groups (docs/decisions/access.md).
 */
export function gate(deps: { keys: ApiKeyService; perKey: RateLimiter; perIp: RateLimiter; access: UserAccessLookup }) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    let principal: Principal | undefined;
    let authError: PimError | undefined;
    try {
      principal = await deps.keys.verify(bearer(req));
    } catch (err) {
      authError = toPimError(err);
      if (authError.status >= 500) return next(authError);
    }
    try {
      const state = principal
        ? await deps.perKey.consume(`key:${principal.keyId}`)
        : await deps.perIp.consume(`ip:${req.ip ?? 'unknown'}`);
      setRateLimitHeaders(res, state);
    } catch (err) {
      const rl = (err as { rateLimit?: RateLimitState }).rateLimit;
      if (rl) setRateLimitHeaders(res, rl);
      return next(err);
    }
    if (authError) return next(authError);
    res.locals.principal = principal;
    const ctx = currentContext();
    if (ctx && principal) {
      try {
        const access = await productAccessOf(principal, deps.access);
        ctx.actor = {
          user_id: principal.user_id,
          user_name: principal.user_name,
          key_name: principal.key_name,
          ...(access ? { access } : {}),
        };
      } catch (err) {
        return next(err);
      }
    }
    next();
  };
}
