import 'reflect-metadata';
import { Pool } from 'pg';
import { webhooks as pb } from '@pim/contracts';
import { createDataSource } from '@pim/db';
import { createLogger } from '@pim/logging';
import { HealthChecker, createRpcClient } from '@pim/rpc';
import { createApp } from './app';
import { createCatalogClients } from './routes/catalog/catalog.clients';
import { readConfig } from './config';
import { SCHEMA, dataSourceOptions } from './data-source';
import { ApiKeyService } from './auth/api-key.service';
import { IdempotencyService } from './idempotency/idempotency.service';
import { RateLimiter } from './rate-limit/rate-limit';

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger({ service: 'gateway', level: config.LOG_LEVEL });
  const ds = createDataSource(dataSourceOptions(config.DATABASE_URL));
  await ds.initialize();
  const limiterPool = new Pool({
    connectionString: config.DATABASE_URL,
    max: 10,
    application_name: 'pim-gateway-ratelimit',
  });
  // An idle connection the server drops (restart, failover) must not crash the process; the pool replaces it.
  limiterPool.on('error', (err) => logger.warn({ err: err.message }, 'rate-limit pool connection lost'));

  const keys = new ApiKeyService(ds, { logger, cacheTtlMs: config.API_KEY_CACHE_TTL_MS });
  await keys.start();
  if (config.PIM_BOOTSTRAP_API_KEY) await keys.ensureBootstrap(config.PIM_BOOTSTRAP_API_KEY);
  const idempotency = new IdempotencyService(ds, {
    retentionMs: config.IDEMPOTENCY_RETENTION_HOURS * 3600_000,
    waitMs: 30_000,
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
  const dependencies = {
    webhooks: new HealthChecker(config.WEBHOOKS_GRPC_URL),
    catalog: new HealthChecker(config.CATALOG_GRPC_URL),
  };
  const publicUrl = config.PUBLIC_URL ?? `http://127.0.0.1:${config.PORT}`;
  const app = createApp({
    logger,
    webhooks,
    catalog,
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
    trustProxyHops: config.TRUST_PROXY_HOPS,
  });
  const server = app.listen(config.PORT, config.HOST, () => {
    app.setReady(true);
    logger.info({ port: config.PORT }, `gateway listening on ${publicUrl}`);
  });
  server.headersTimeout = 15_000;
  server.requestTimeout = config.REQUEST_TIMEOUT_MS + 5_000;

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.setReady(false);
    logger.info({ signal }, 'shutting down');
    clearInterval(purge);
    const force = setTimeout(() => process.exit(0), config.SHUTDOWN_GRACE_MS).unref();
    server.close(() => {
      clearTimeout(force);
      webhooks.close();
      catalog.close();
      for (const h of Object.values(dependencies)) h.close();
      void Promise.allSettled([keys.stop(), ds.destroy(), limiterPool.end()]).then(() => {
        logger.info('stopped');
        process.exit(0);
      });
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err) => {
  console.error(
    JSON.stringify({ level: 'fatal', service: 'gateway', msg: 'start-up failed', err: String(err?.message ?? err) }),
  );
  process.exit(1);
});
