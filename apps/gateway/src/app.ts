import express, { type Express } from 'express';
import { pinoHttp } from 'pino-http';
import swaggerUi from 'swagger-ui-express';
import type { Logger } from '@pim/logging';
import { currentContext } from '@pim/logging';
import type { HealthChecker } from '@pim/rpc';
import { Api } from './http/route';
import { errorHandler, notFoundHandler, requireJson } from './http/errors';
import { requestContext } from './http/request-context';
import { buildDocument, createRegistry } from './openapi/document';
import { webhookRoutes, type WebhooksClient } from './routes/webhooks';
import { collectionRoutes } from './routes/collections';

/** The base path of the public API. */
export const API_BASE = '/api/v1';

/** What the gateway needs to serve. */
export interface GatewayDeps {
  logger: Logger;
  webhooks: WebhooksClient;
  /** gRPC health of each app behind the gateway, for /readyz. */
  dependencies: Record<string, HealthChecker>;
  jsonBodyLimit: string;
  maxLimit: number;
  defaultLimit: number;
  publicUrl: string;
}

/** The express application: middleware, routes, OpenAPI document and docs page. */
export function createApp(deps: GatewayDeps): Express & { setReady(ready: boolean): void } {
  const app = express() as Express & { setReady(ready: boolean): void };
  let ready = false;
  app.setReady = (r: boolean) => {
    ready = r;
  };
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.set('trust proxy', false);

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const checks = Object.fromEntries(
      await Promise.all(Object.entries(deps.dependencies).map(async ([name, h]) => [name, await h.check('', 500)] as const)),
    );
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', dependencies: checks });
  });

  app.use(requestContext);
  app.use(
    pinoHttp({
      logger: deps.logger,
      genReqId: (_req, res) => (res as express.Response).locals?.requestId ?? currentContext()?.requestId ?? '',
      customProps: () => ({ request_id: currentContext()?.requestId }),
      serializers: {
        req: (req: { method: string; url: string; id: string }) => ({ method: req.method, url: req.url }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
    }),
  );

  const registry = createRegistry();
  const api = new Api(registry, API_BASE);
  webhookRoutes(api, deps.webhooks, { maxLimit: deps.maxLimit, defaultLimit: deps.defaultLimit });
  collectionRoutes(api);
  const document = buildDocument(registry, `${deps.publicUrl}`);

  app.get(`${API_BASE}/openapi.json`, (_req, res) => {
    res.json(document);
  });
  app.use('/docs', swaggerUi.serve, swaggerUi.setup(undefined, { swaggerOptions: { url: `${API_BASE}/openapi.json` }, customSiteTitle: 'PIM platform API' }));

  app.use(API_BASE, requireJson(), express.json({ limit: deps.jsonBodyLimit, type: ['application/json', 'application/*+json'] }), api.router);
  app.use(notFoundHandler());
  app.use(errorHandler(deps.logger));
  return app;
}
