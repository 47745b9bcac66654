import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import {
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  ValidationError,
  UnsupportedMediaTypeError,
  toPimError,
  type PimError,
} from '@pim/errors';
import type { Logger } from '@pim/logging';
import { apiLinkWriter } from '../openapi/links';

/** Seconds a 429 or 503 tells the caller to wait when its cause named no time (the document promises the header). */
const DEFAULT_RETRY_AFTER = 5;

/** Writes an error object as the response (the only place the gateway builds an error body). */
export function sendError(res: Response, err: PimError): void {
  if (err instanceof MethodNotAllowedError) res.setHeader('Allow', err.allow.join(', '));
  const retryAfter = err.retryAfter ?? (err.status === 429 || err.status === 503 ? DEFAULT_RETRY_AFTER : undefined);
  if (retryAfter !== undefined)
    res.setHeader('Retry-After', String(Math.min(86_400, Math.max(1, Math.ceil(retryAfter)))));
  res
    .status(err.status)
    .type('application/json')
    .send(JSON.stringify(err.toObject(res.locals.requestId as string | undefined, apiLinkWriter)));
}

/** Errors raised by express's body parser, turned into domain errors. */
function fromBodyParser(err: {
  type?: string;
  status?: number;
  limit?: number;
  message?: string;
}): PimError | undefined {
  switch (err.type) {
    case 'entity.parse.failed':
      return new ValidationError('The request body is not valid JSON', {
        title: 'Malformed JSON',
        solution: 'Send a well-formed JSON document (check quotes, commas and brackets)',
      });
    case 'entity.too.large':
      return new PayloadTooLargeError(`The request body is larger than the limit of ${err.limit} bytes`, {
        solution: `Send at most ${err.limit} bytes in one request`,
      });
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new UnsupportedMediaTypeError('The body must be UTF-8 encoded JSON');
    case 'request.aborted':
    case 'stream.encoding.set':
    case 'request.size.invalid':
      return new ValidationError('The request body could not be read', { title: 'Unreadable body' });
    default:
      return undefined;
  }
}

/** The router's refusal of a path segment that is not valid percent-encoding (`/brands/%ZZ`). */
function fromRouter(err: unknown): PimError | undefined {
  if (!(err instanceof URIError)) return undefined;
  return new ValidationError('A segment of the path is not valid percent-encoding', {
    title: 'Malformed path',
    solution: 'Percent-encode the path as UTF-8 (RFC 3986): a % is followed by two hexadecimal digits',
  });
}

/** Maps anything thrown by a route to its error object; unexpected errors are logged with their stack. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const pim = fromBodyParser(err) ?? fromRouter(err) ?? toPimError(err);
    const line = {
      method: req.method,
      path: req.path,
      status: pim.status,
      kind: pim.kind,
      err: pim.logLevel === 'error' ? err : undefined,
    };
    logger[pim.logLevel](line, pim.logLevel === 'error' ? 'request failed' : pim.message);
    if (res.headersSent) {
      res.end();
      return;
    }
    sendError(res, pim);
  };
}

/**
 * The answer for a request no route serves: a 405 naming the methods in Allow when the path is a
 * route's with another method (`DELETE /api/v1/collections`), else a 404.
 */
export function notFoundHandler(allowed: (path: string) => string[] = () => []): RequestHandler {
  return (req: Request, res: Response) => {
    const methods = allowed(req.path);
    if (methods.length > 0) {
      const err = new MethodNotAllowedError(`${req.path} does not take ${req.method}`, {
        solution: `Use ${methods.join(', ')} (the methods in the Allow header); see the API reference at /docs`,
      });
      err.allow = methods;
      sendError(res, err);
      return;
    }
    sendError(
      res,
      new NotFoundError(`No route for ${req.method} ${req.path}`, {
        title: 'Route not found',
        solution: 'See the API reference at /docs for the available routes',
      }),
    );
  };
}

/** Requests that carry a body must send it as JSON. */
export function requireJson(takesUpload: (req: Request) => boolean = () => false): RequestHandler {
  return (req, _res, next) => {
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (takesUpload(req)) {
      if (req.is('multipart/form-data')) return next();
      next(
        new UnsupportedMediaTypeError(`Content-Type '${req.get('content-type') ?? '(none)'}' is not supported here`, {
          solution:
            'Send the file as multipart/form-data with the file in a part named "file" (curl -F file=@products.xlsx)',
        }),
      );
      return;
    }
    if (hasBody && !req.is(['application/json', 'application/merge-patch+json', 'application/*+json'])) {
      next(
        new UnsupportedMediaTypeError(`Content-Type '${req.get('content-type') ?? '(none)'}' is not supported`, {
          solution: 'Send the body as JSON with "Content-Type: application/json"',
        }),
      );
      return;
    }
    next();
  };
}
