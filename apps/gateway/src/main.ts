import { webhooks as pb } from '@pim/contracts';
import { createLogger } from '@pim/logging';
import { HealthChecker, createRpcClient } from '@pim/rpc';
import { createApp } from './app';
import { readConfig } from './config';

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger({ service: 'gateway', level: config.LOG_LEVEL });
  const webhooks = createRpcClient(pb.WebhooksServiceClient, { service: 'webhooks', address: config.WEBHOOKS_GRPC_URL, deadlineMs: config.GRPC_DEADLINE_MS });
  const dependencies = { webhooks: new HealthChecker(config.WEBHOOKS_GRPC_URL) };
  const publicUrl = config.PUBLIC_URL ?? `http://127.0.0.1:${config.PORT}`;
  const app = createApp({
    logger,
    webhooks,
    dependencies,
    jsonBodyLimit: config.JSON_BODY_LIMIT,
    maxLimit: config.PAGE_SIZE_MAX,
    defaultLimit: config.PAGE_SIZE_DEFAULT,
    publicUrl,
  });
  const server = app.listen(config.PORT, config.HOST, () => {
    app.setReady(true);
    logger.info({ port: config.PORT }, `gateway listening on ${publicUrl}`);
  });
  server.headersTimeout = 15_000;
  server.requestTimeout = 30_000;

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.setReady(false);
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(0), config.SHUTDOWN_GRACE_MS).unref();
    server.close(() => {
      clearTimeout(force);
      webhooks.close();
      for (const h of Object.values(dependencies)) h.close();
      logger.info('stopped');
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err) => {
  console.error(JSON.stringify({ level: 'fatal', service: 'gateway', msg: 'start-up failed', err: String(err?.message ?? err) }));
  process.exit(1);
});
