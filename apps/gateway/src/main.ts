import 'reflect-metadata';
import { answerClientErrors } from './http/client-errors';
import type { Server } from 'node:http';
import { Pool } from 'pg';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { Shutdown, packageVersion, serveMetrics } from '@pim/app';
import { webhooks as pb } from '@pim/contracts';
import { createDataSource, pgPoolOf, watchPools } from '@pim/db';
import { createLogger, startTracing } from '@pim/logging';
import { HealthChecker, createRpcClient } from '@pim/rpc';
import { createApp } from './app';
import { OWNER_ROUTES } from './routes/owners';
import { createCatalogClients } from './routes/catalog/catalog.clients';
import { createDeadLetterClients } from './routes/dead-letters.routes';
import { readConfig } from './config';
import { SCHEMA, dataSourceOptions } from './data-source';
import { ApiKeyService } from './auth/api-key.service';
import { IdempotencyService } from './idempotency/idempotency.service';
import { RateLimiter } from './rate-limit/rate-limit';

async function main(): Promise<void> {
  const config = readConfig();
  const version = packageVersion(__dirname);
  const logger = createLogger({ service: 'gateway', version, level: config.LOG_LEVEL });
  // Off unless the standard OTEL_* variables ask for it (docs/observability.md).
  const tracing = await startTracing({ serviceName: 'gateway', version, logger });
  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics, prefix: 'pim_gateway_' });
  const metricsServer =
    config.GATEWAY_METRICS_PORT > 0 ? await serveMetrics(metrics, config.GATEWAY_METRICS_PORT, logger) : undefined;
  const ds = createDataSource({
    ...dataSourceOptions(config.DATABASE_URL),
    ...(config.DB_POOL_SIZE ? { poolSize: config.DB_POOL_SIZE } : {}),
  });
  await ds.initialize();
  const limiterPool = new Pool({
    connectionString: config.DATABASE_URL,
    max: Math.min(10, config.DB_POOL_SIZE ?? 10),
    application_name: 'pim-gateway-ratelimit',
  });
  // An idle connection the server drops (restart, failover) must not crash the process; the pool replaces it.
  limiterPool.on('error', (err) => logger.warn({ err: err.message }, 'rate-limit pool connection lost'));
  watchPools(metrics, [
    { name: 'main', pool: () => pgPoolOf(ds) },
    { name: 'rate_limit', pool: () => limiterPool },
  ]);

  const keys = new ApiKeyService(ds, { logger, cacheTtlMs: config.API_KEY_CACHE_TTL_MS });
  await keys.start();
  if (config.PIM_BOOTSTRAP_API_KEY) await keys.ensureBootstrap(config.PIM_BOOTSTRAP_API_KEY);
  const idempotency = new IdempotencyService(ds, {
    retentionMs: config.IDEMPOTENCY_RETENTION_HOURS * 3600_000,
    waitMs: 30_000,
    // A live request is answered (or timed out) well within twice the request time-out.
    claimLeaseMs: 2 * config.REQUEST_TIMEOUT_MS,
  });
  const purge = setInterval(
    () => void idempotency.purgeExpired().catch((err) => logger.warn({ err }, 'idempotency purge failed')),
    10 * 60_000,
  ).unref();

  const webhooks = createRpcClient(pb.WebhooksServiceClient, {
    service: 'webhooks',
    address: config.WEBHOOKS_GRPC_URL,
    deadlineMs: config.GRPC_DEADLINE_MS,
  });
  const catalog = createCatalogClients({ address: config.CATALOG_GRPC_URL, deadlineMs: config.GRPC_DEADLINE_MS });
  const ownerAddress = (o: (typeof OWNER_ROUTES)[number]) => process.env[o.addressEnv] ?? o.defaultAddress;
  const owners = Object.fromEntries(
    OWNER_ROUTES.map((o) => [o.app, o.clients({ address: ownerAddress(o), deadlineMs: config.GRPC_DEADLINE_MS })]),
  );
  const deadLetters = createDeadLetterClients(
    {
      webhooks: config.WEBHOOKS_GRPC_URL,
      catalog: config.CATALOG_GRPC_URL,
      ...Object.fromEntries(OWNER_ROUTES.map((o) => [o.app, ownerAddress(o)])),
    },
    config.GRPC_DEADLINE_MS,
  );
  const dependencies: Record<string, HealthChecker> = {
    webhooks: new HealthChecker(config.WEBHOOKS_GRPC_URL),
    catalog: new HealthChecker(config.CATALOG_GRPC_URL),
    ...Object.fromEntries(OWNER_ROUTES.map((o) => [o.app, new HealthChecker(ownerAddress(o))])),
  };
  const publicUrl = config.PUBLIC_URL ?? `http://127.0.0.1:${config.PORT}`;
  const app = createApp({
    logger,
    webhooks,
    catalog,
    owners,
    deadLetters,
    keys,
    idempotency,
    rateLimits: {
      perKey: new RateLimiter(limiterPool, config.RATE_LIMIT_PER_MINUTE, { schema: SCHEMA, keyPrefix: 'rl' }),
      perIp: new RateLimiter(limiterPool, config.RATE_LIMIT_ANONYMOUS_PER_MINUTE, {
        schema: SCHEMA,
        keyPrefix: 'rl-anon',
      }),
    },
    dependencies,
    jsonBodyLimit: config.JSON_BODY_LIMIT,
    bulkBodyLimit: config.BULK_BODY_LIMIT,
    maxLimit: config.PAGE_SIZE_MAX,
    defaultLimit: config.PAGE_SIZE_DEFAULT,
    publicUrl,
    corsOrigins: config.CORS_ORIGINS.split(',')
      .map((o) => o.trim())
      .filter(Boolean),
    requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
    uploadMaxBytes: config.UPLOAD_MAX_BYTES,
    trustProxyHops: config.TRUST_PROXY_HOPS,
    metrics,
  });
  const server = app.listen(config.PORT, config.HOST, () => {
    app.setReady(true);
    logger.info({ port: config.PORT, tracing: Boolean(tracing) }, `gateway listening on ${publicUrl}`);
  });
  answerClientErrors(server, logger);
  server.headersTimeout = 15_000;
  // Receiving a whole request may take as long as an upload of the largest file on a slow link;
  // ordinary routes are still answered within REQUEST_TIMEOUT_MS by the gateway's own timeout.
  server.requestTimeout = Math.max(config.REQUEST_TIMEOUT_MS + 5_000, config.UPLOAD_TIMEOUT_MS);

  // Not ready first (load balancers stop sending), then requests in flight finish within the grace period.
  new Shutdown(logger)
    .stage({ name: 'readiness', run: () => app.setReady(false) })
    .stage(
      { name: 'idempotency purge', run: () => clearInterval(purge) },
      { name: 'HTTP server', run: () => closeServer(server, config.SHUTDOWN_GRACE_MS) },
    )
    .stage(
      {
        name: 'clients',
        run: () =>
          [
            webhooks,
            catalog,
            ...Object.values(owners),
            ...Object.values(deadLetters),
            ...Object.values(dependencies),
          ].forEach((c) => c.close()),
      },
      { name: 'API keys', run: () => keys.stop() },
      metricsServer && { name: 'metrics', run: () => new Promise((r) => metricsServer.close(() => r(undefined))) },
    )
    .stage({ name: 'database', run: () => ds.destroy() }, { name: 'rate-limit pool', run: () => limiterPool.end() })
    .stage(tracing && { name: 'tracing', run: () => tracing.shutdown() })
    .onSignals();
}

/** Stops taking connections and waits for requests in flight, at most `graceMs`. */
function closeServer(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => {
      server.closeAllConnections();
      resolve();
    }, graceMs).unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}

main().catch((err) => {
  console.error(
    JSON.stringify({ level: 'fatal', service: 'gateway', msg: 'start-up failed', err: String(err?.message ?? err) }),
  );
  process.exit(1);
});
