import { performance } from 'node:perf_hooks';
import type { RequestHandler, Response } from 'express';
import { Counter, Histogram, type Registry } from 'prom-client';

/** The route label of a request no declared route matched (any path: one series, whatever was asked). */
export const UNMATCHED_ROUTE = 'unmatched';

/** The status label of a request whose caller went away before any answer was sent. */
export const CLIENT_CLOSED_STATUS = '499';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120];

/** Names the route a request matched, for the metrics (the declared path, never the URL asked). */
export function setRoute(res: Response, route: string): void {
  res.locals.route = route;
}

/** A middleware that names the route of what it serves (health, the document, the docs page). */
export function routeLabel(route: string): RequestHandler {
  return (_req, res, next) => {
    setRoute(res, route);
    next();
  };
}

/**
 * The gateway's HTTP metrics: `pim_http_requests_total` and `pim_http_request_duration_seconds`
 * by method, route (the declared path, `/api/v1/products/:id`; `unmatched` for anything else) and
 * status. The middleware goes first, so it times whole requests (authentication, rate limits and
 * the owner's answer) and counts refusals under the route they were for.
 */
export class HttpMetrics {
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly duration: Histogram<'method' | 'route' | 'status'>;

  constructor(registry: Registry) {
    this.requests = new Counter({
      name: 'pim_http_requests_total',
      help: 'HTTP requests answered, by method, declared route and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'pim_http_request_duration_seconds',
      help: 'Time from a request arriving to its answer being sent, by method, declared route and status',
      labelNames: ['method', 'route', 'status'],
      buckets: DURATION_BUCKETS,
      registers: [registry],
    });
  }

  /** Observes each request once, when its answer is sent or its caller goes away. */
  middleware(): RequestHandler {
    return (req, res, next) => {
      const started = performance.now();
      let observed = false;
      const observe = () => {
        if (observed) return;
        observed = true;
        const labels = {
          method: METHODS.has(req.method) ? req.method : 'OTHER',
          route: typeof res.locals.route === 'string' ? res.locals.route : UNMATCHED_ROUTE,
          status: res.headersSent ? String(res.statusCode) : CLIENT_CLOSED_STATUS,
        };
        this.requests.inc(labels);
        this.duration.observe(labels, (performance.now() - started) / 1000);
      };
      res.once('finish', observe);
      res.once('close', observe);
      next();
    };
  }
}
