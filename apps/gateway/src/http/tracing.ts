import type { IncomingHttpHeaders } from 'node:http';
import type { RequestHandler } from 'express';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
} from '@opentelemetry/semantic-conventions';
import { extractTraceContext, failSpan, SpanKind, startSpan, tracingEnabled, withSpan } from '@pim/logging';
import { CLIENT_CLOSED_STATUS } from './metrics';

const headerGetter = {
  get: (headers: IncomingHttpHeaders, key: string) => {
    const v = headers[key];
    return Array.isArray(v) ? v[0] : v;
  },
  keys: (headers: IncomingHttpHeaders) => Object.keys(headers),
};

/**
 * The server span of every request it sees (tracing on; a no-op otherwise): it continues the
 * caller's W3C `traceparent` when one is sent, runs the rest of the request inside it (so the gRPC
 * calls it makes are its children), and is named `METHOD /declared/route` once the route is known
 * (`res.locals.route`, the name the metrics use; just `METHOD` for a request no route matched).
 * A 5xx marks it failed; a caller gone before the answer shows status 499, as in the metrics.
 */
export function httpSpans(): RequestHandler {
  return (req, res, next) => {
    if (!tracingEnabled()) return next();
    const span = startSpan(req.method, {
      kind: SpanKind.SERVER,
      parent: extractTraceContext(req.headers, headerGetter),
      attributes: {
        [ATTR_HTTP_REQUEST_METHOD]: req.method,
        [ATTR_URL_PATH]: req.path,
        [ATTR_URL_SCHEME]: req.protocol,
        ...(req.ip ? { [ATTR_CLIENT_ADDRESS]: req.ip } : {}),
      },
    });
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      const route = res.locals.route;
      if (typeof route === 'string') {
        span.updateName(`${req.method} ${route}`);
        span.setAttribute(ATTR_HTTP_ROUTE, route);
      }
      if (typeof res.locals.requestId === 'string') span.setAttribute('pim.request_id', res.locals.requestId);
      const status = res.headersSent ? res.statusCode : Number(CLIENT_CLOSED_STATUS);
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
      if (status >= 500) failSpan(span, { message: `answered ${status}` }, String(status));
      span.end();
    };
    res.once('finish', end);
    res.once('close', end);
    withSpan(span, () => next());
  };
}
