import express, { type Express, type RequestHandler } from 'express';
import cors from 'cors';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import swaggerUi from 'swagger-ui-express';
import { RequestTimeoutError, UnavailableError } from '@pim/errors';
import type { Registry } from 'prom-client';
import type { Logger } from '@pim/logging';
import { currentContext } from '@pim/logging';
import type { HealthChecker } from '@pim/rpc';
import { Api, authorizeDeclared } from './http/route';
import { errorHandler, notFoundHandler, requireJson, sendError } from './http/errors';
import { requestContext } from './http/request-context';
import { jsonGuard } from './http/json-guard';
import { refuseMalformed } from './http/client-errors';
import { HttpMetrics, routeLabel } from './http/metrics';
import { httpSpans } from './http/tracing';
import { buildDocument, createRegistry, type ApiDocument } from './document';
import { UPLOAD_MAX_BYTES, gatewayConfigSchema } from './config';
import { webhookRoutes, type WebhooksClient } from './routes/webhooks';
import { deliveryRoutes } from './routes/deliveries';
import { catalogRoutes } from './routes/catalog/catalog.routes';
import type { CatalogClients } from './routes/catalog/catalog.clients';
import { collectionRoutes } from './routes/collections';
import { apiKeyRoutes } from './routes/api-keys';
import { deadLetterRoutes, type DeadLetterClients } from './routes/dead-letters.routes';
import { gate } from './auth/gate';
import type { UserAccessLookup } from './auth/access';
import { userAccessFrom } from './routes/workflow.routes';
import { API_BASE } from './openapi/links';
import { OWNER_ROUTES } from './routes/owners';
import type { ApiKeyService } from './auth/api-key.service';
import type { RateLimiter } from './rate-limit/rate-limit';
import type { IdempotencyService } from './idempotency/idempotency.service';

/** The base path of the public API. */
export { API_BASE };

/** Paths that answer without an API key: health, the OpenAPI document and the docs page. */
export const PUBLIC_PATHS = ['/healthz', '/readyz', `${API_BASE}/openapi.json`, '/docs'];

/** What the gateway needs to serve. */
export interface GatewayDeps {
  logger: Logger;
  webhooks: WebhooksClient;
  catalog: CatalogClients;
  /** Clients of the owner apps in `OWNER_ROUTES`, by app. */
  owners?: Record<string, { close(): void }>;
  /** The dead letters service of every app with an outbox (`/dead-letters`). */
  deadLetters?: DeadLetterClients;
  keys: ApiKeyService;
  idempotency: IdempotencyService;
  rateLimits: { perKey: RateLimiter; perIp: RateLimiter };
  /**
   * Reads a user's product access on each request of a key bound to a user; the workflow app's
   * answer through `owners.workflow` when not given.
   */
  userAccess?: UserAccessLookup;
  /** gRPC health of each app behind the gateway, for /readyz. */
  dependencies: Record<string, HealthChecker>;
  jsonBodyLimit: string;
  /** Body limit of bulk routes (docs/platform/rules.md: limits). */
  bulkBodyLimit?: string;
  maxLimit: number;
  defaultLimit: number;
  publicUrl: string;
  corsOrigins: string[];
  requestTimeoutMs: number;
  trustProxyHops: number;
  /** The largest upload in bytes (an import's file). */
  uploadMaxBytes?: number;
  /** The gateway's Prometheus registry: requests are counted and timed on it (`pim_http_*`). */
  metrics?: Registry;
}

/** What the routes use: clients and services (called only when a request arrives) and list limits. */
export type RouteDeps = Pick<
  GatewayDeps,
  'webhooks' | 'catalog' | 'owners' | 'deadLetters' | 'keys' | 'maxLimit' | 'defaultLimit' | 'uploadMaxBytes'
>;

/** Declares every /api/v1 route: the one list both the app and the exported document use. */
export function declareRoutes(api: Api, deps: RouteDeps): void {
  const limits = {
    maxLimit: deps.maxLimit,
    defaultLimit: deps.defaultLimit,
    uploadMaxBytes: deps.uploadMaxBytes ?? UPLOAD_MAX_BYTES,
  };
  webhookRoutes(api, deps.webhooks, limits);
  deliveryRoutes(api, deps.webhooks, limits);
  const catalogRecords = catalogRoutes(api, deps.catalog, limits);
  for (const owner of OWNER_ROUTES) {
    owner.routes(api, () => deps.owners?.[owner.app] ?? unreachable(`${owner.app} clients`), limits, catalogRecords);
  }
  collectionRoutes(api, limits);
  apiKeyRoutes(api, deps.keys, limits);
  deadLetterRoutes(api, () => deps.deadLetters ?? unreachable<DeadLetterClients>('dead letter clients'), limits);
}

/** A dependency the document builder must never call (its routes are declared, never served). */
function unreachable<T>(name: string): T {
  return new Proxy(
    {},
    {
      get: (_target, prop) => {
        throw new Error(`${name}.${String(prop)} used while only building the OpenAPI document`);
      },
    },
  ) as T;
}

/**
 * The OpenAPI document of the gateway, built without servers, databases or clients: the routes
 * are declared against stand-in dependencies. Limits default to the configuration's defaults.
 */
export function buildApiDocument(
  opts: { publicUrl?: string; maxLimit?: number; defaultLimit?: number } = {},
): ApiDocument {
  const registry = createRegistry();
  declareRoutes(new Api(registry, API_BASE), {
    webhooks: unreachable<WebhooksClient>('webhooks'),
    catalog: unreachable<CatalogClients>('catalog'),
    owners: {},
    keys: unreachable<ApiKeyService>('keys'),
    maxLimit: opts.maxLimit ?? gatewayConfigSchema.shape.PAGE_SIZE_MAX.parse(undefined),
    defaultLimit: opts.defaultLimit ?? gatewayConfigSchema.shape.PAGE_SIZE_DEFAULT.parse(undefined),
  });
  return buildDocument(registry, opts.publicUrl);
}

/**
 * Answers a request that is not answered in time: 408 when its body has not all arrived (the
 * caller is late: it announced more than it sent), else 503 (the work itself is bounded by gRPC
 * deadlines).
 */
function requestTimeout(ms: number): RequestHandler {
  return (req, res, next) => {
    const timer = setTimeout(() => {
      if (res.headersSent) return;
      if (!req.complete) {
        // The rest of the body may never come: the connection is not kept for another request.
        res.setHeader('Connection', 'close');
        sendError(
          res,
          new RequestTimeoutError(`The request body did not all arrive within ${ms} ms`, {
            solution: 'Send the whole body its Content-Length (or its chunked encoding) announces',
          }),
        );
        return;
      }
      sendError(
        res,
        new UnavailableError(`The request was not answered within ${ms} ms`, {
          title: 'Request timed out',
          retryAfter: 1,
        }),
      );
    }, ms);
    res.once('finish', () => clearTimeout(timer));
    res.once('close', () => clearTimeout(timer));
    // The calls the request makes end by then, and the apps commit nothing of it after it.
    const context = currentContext();
    if (context) context.deadline = new Date(Date.now() + ms);
    // A long-running route (an upload, a download, a stream of events) lifts the timeout.
    res.locals.cancelTimeout = () => {
      clearTimeout(timer);
      if (context) delete context.deadline;
    };
    next();
  };
}

/** Paths (under the API base) whose bodies may reach the bulk limit. */
export const BULK_PATHS = ['/products/bulk'];

/** JSON body parsing with the ordinary limit, or the bulk limit on bulk routes. */
function jsonBody(limit: string, bulkLimit: string): RequestHandler {
  const type = ['application/json', 'application/*+json'];
  const ordinary = express.json({ limit, type });
  const bulk = express.json({ limit: bulkLimit, type });
  return (req, res, next) => (BULK_PATHS.includes(req.path) ? bulk : ordinary)(req, res, next);
}

/** The express application: middleware, routes, OpenAPI document and docs page. */
export function createApp(deps: GatewayDeps): Express & { setReady(ready: boolean): void; api: Api } {
  const app = express() as Express & { setReady(ready: boolean): void; api: Api };
  let ready = false;
  app.setReady = (r: boolean) => {
    ready = r;
  };
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.set('trust proxy', deps.trustProxyHops);
  if (deps.metrics) app.use(new HttpMetrics(deps.metrics).middleware());
  app.use(helmet());

  app.get('/healthz', routeLabel('/healthz'), (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', routeLabel('/readyz'), async (_req, res) => {
    const checks = Object.fromEntries(
      await Promise.all(
        Object.entries(deps.dependencies).map(async ([name, h]) => [name, await h.check('', 500)] as const),
      ),
    );
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', dependencies: checks });
  });

  app.use(httpSpans());
  app.use(requestContext);
  app.use(refuseMalformed());
  app.use(
    pinoHttp({
      logger: deps.logger,
      genReqId: (_req, res) => (res as express.Response).locals?.requestId ?? currentContext()?.requestId ?? '',
      customProps: () => ({ request_id: currentContext()?.requestId }),
      serializers: {
        req: (req: { method: string; url: string }) => ({ method: req.method, url: req.url }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
    }),
  );
  app.use(
    cors({
      origin: deps.corsOrigins.length > 0 ? deps.corsOrigins : false,
      exposedHeaders: [
        'ETag',
        'Location',
        'X-Request-Id',
        'Retry-After',
        'RateLimit-Limit',
        'RateLimit-Remaining',
        'RateLimit-Reset',
        'RateLimit-Policy',
        'Idempotent-Replayed',
      ],
      allowedHeaders: ['Authorization', 'Content-Type', 'If-Match', 'If-None-Match', 'Idempotency-Key', 'X-Request-Id'],
      maxAge: 600,
    }),
  );

  const registry = createRegistry();
  const api = new Api(registry, API_BASE, deps.idempotency, deps.publicUrl || undefined);
  declareRoutes(api, deps);
  app.api = api;

  // Built on the first request for it, then kept: building it allocates ~150 MB of short-lived
  // objects (zod-to-openapi), which the gateway's start and idle memory do without.
  let document: ApiDocument | undefined;
  app.get(`${API_BASE}/openapi.json`, routeLabel(`${API_BASE}/openapi.json`), (_req, res) => {
    document ??= buildDocument(registry, deps.publicUrl);
    res.json(document);
  });
  app.use(
    '/docs',
    routeLabel('/docs'),
    swaggerUi.serve,
    swaggerUi.setup(undefined, {
      swaggerOptions: { url: `${API_BASE}/openapi.json` },
      customSiteTitle: 'PIM platform API',
    }),
  );

  app.use(API_BASE, api.labels);
  app.use(
    API_BASE,
    requestTimeout(deps.requestTimeoutMs),
    gate({
      keys: deps.keys,
      perKey: deps.rateLimits.perKey,
      perIp: deps.rateLimits.perIp,
      access: deps.userAccess ?? userAccessFrom(() => deps.owners?.workflow),
    }),
    authorizeDeclared,
    requireJson((req) => api.takesUpload(req.method, req.path)),
    jsonBody(deps.jsonBodyLimit, deps.bulkBodyLimit ?? '16mb'),
    jsonGuard(),
    api.router,
  );
  app.use(notFoundHandler((path) => api.allowedMethods(path)));
  app.use(errorHandler(deps.logger));
  return app;
}
