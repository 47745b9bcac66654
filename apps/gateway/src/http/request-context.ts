import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { runWithContext } from '@pim/logging';

const VALID_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Takes the caller's X-Request-Id when sane (else makes one), echoes it, and runs the request in its context. */
export function requestContext(req: Request, res: Response, next: NextFunction): void {
  const given = req.get('x-request-id');
  const requestId = given && VALID_ID.test(given) ? given : randomUUID();
  res.locals.requestId = requestId;
  res.setHeader('X-Request-Id', requestId);
  runWithContext({ requestId }, () => next());
}
