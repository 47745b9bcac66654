import 'reflect-metadata';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { createDataSource } from '@pim/db';
import { createLogger, type Logger } from '@pim/logging';
import { GrpcApp } from '@pim/rpc';
import { OutboxRelay, ensureStream } from '@pim/events';
import { PROTO_FILES, PROTO_ROOT } from '@pim/contracts';
import { readConfig } from './config';
import { dataSourceOptions } from './data-source';
import { WebhookService } from './webhook/webhook.service';
import { webhooksGrpc } from './webhook/webhook.grpc';
import { DeliveryService } from './delivery/delivery.service';
import { DeliverySender } from './delivery/delivery.sender';
import { DeliveryWorker } from './delivery/delivery.worker';
import { FanoutConsumer } from './fanout/fanout.consumer';
import { FanoutRecorder } from './fanout/fanout.recorder';
import { AddressPolicy } from './ssrf/address.policy';
import { createGuardedAgent } from './ssrf/guarded.agent';
import { WebhookMetrics, serveMetrics } from './metrics/metrics';

const STARTUP_RETRY_MS = 60_000;

// NATS (or its JetStream) may still be starting next to us: try for a while before giving up.
async function withRetries<T>(logger: Logger, what: string, fn: () => Promise<T>): Promise<T> {
  const until = Date.now() + STARTUP_RETRY_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > until) throw err;
      logger.warn({ err, attempt }, `${what} failed; retrying`);
      await new Promise((r) => setTimeout(r, Math.min(2_000, 100 * 2 ** attempt)));
    }
  }
}

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger({ service: 'webhooks', level: config.LOG_LEVEL });
  const metrics = new WebhookMetrics({ defaultMetrics: true });
  const metricsServer =
    config.WEBHOOKS_METRICS_PORT > 0 ? await serveMetrics(metrics, config.WEBHOOKS_METRICS_PORT, logger) : undefined;

  const ds = createDataSource({ ...dataSourceOptions(config.DATABASE_URL), poolSize: 16 });
  await ds.initialize();
  const policy = new AddressPolicy(config.WEBHOOKS_ALLOWED_TARGETS);
  if (policy.allowList.length > 0)
    logger.warn({ allowed: policy.allowList }, 'webhooks may reach these non-public ranges (WEBHOOKS_ALLOWED_TARGETS)');
  const webhooks = new WebhookService(ds, { policy, secretOverlapMs: config.WEBHOOKS_SECRET_OVERLAP_MS });
  const deliveries = new DeliveryService(ds);

  // Only the relay and the fan-out talk to NATS; an API-only replica starts without it.
  let nc: NatsConnection | undefined;
  if (config.OUTBOX_RELAY || config.WEBHOOKS_FANOUT) {
    nc = await withRetries(logger, 'connecting to NATS', () =>
      connect({ servers: config.NATS_URL, name: 'pim-webhooks', maxReconnectAttempts: -1, reconnectTimeWait: 250 }),
    );
    const conn = nc;
    await withRetries(logger, 'ensuring the events stream', () =>
      ensureStream(conn, { name: config.PIM_EVENTS_STREAM, subjects: [`${config.PIM_SUBJECT_PREFIX}pim.>`] }),
    );
  }

  const relay =
    config.OUTBOX_RELAY && nc
      ? new OutboxRelay({
          dataSource: ds,
          nc,
          stream: config.PIM_EVENTS_STREAM,
          subjectPrefix: config.PIM_SUBJECT_PREFIX,
          logger,
          maxBackoffMs: config.OUTBOX_MAX_BACKOFF_MS,
        })
      : undefined;
  await relay?.start();

  const agent = createGuardedAgent({ policy, connections: config.WEBHOOKS_CONCURRENCY });
  const worker = config.WEBHOOKS_DELIVERY
    ? new DeliveryWorker({
        dataSource: ds,
        sender: new DeliverySender({
          agent,
          timeoutMs: config.WEBHOOKS_TIMEOUT_MS,
          responseBodyMax: config.WEBHOOKS_RESPONSE_BODY_MAX,
        }),
        logger,
        metrics,
        concurrency: config.WEBHOOKS_CONCURRENCY,
        perWebhookConcurrency: config.WEBHOOKS_PER_WEBHOOK_CONCURRENCY,
        leaseMs: config.WEBHOOKS_LEASE_MS,
        pollMs: config.WEBHOOKS_POLL_MS,
        schedule: config.WEBHOOKS_RETRY_SCHEDULE,
        jitter: config.WEBHOOKS_RETRY_JITTER,
        retentionDays: config.WEBHOOKS_RETENTION_DAYS,
        stopGraceMs: config.SHUTDOWN_GRACE_MS,
        onGone: async (id) => {
          if (await webhooks.disableGone(id))
            logger.warn({ webhook_id: id }, 'receiver answered 410 Gone; webhook disabled');
        },
      })
    : undefined;
  await worker?.start();

  const fanout =
    config.WEBHOOKS_FANOUT && nc
      ? new FanoutConsumer({
          nc,
          stream: config.PIM_EVENTS_STREAM,
          subjectPrefix: config.PIM_SUBJECT_PREFIX,
          durable: config.WEBHOOKS_FANOUT_CONSUMER,
          ackWaitMs: config.WEBHOOKS_FANOUT_ACK_WAIT_MS,
          recorder: new FanoutRecorder(ds),
          logger,
          metrics,
          onDeliveries: () => worker?.wake(),
        })
      : undefined;
  fanout?.start();

  const app = new GrpcApp({
    logger,
    services: [webhooksGrpc(webhooks, deliveries, logger)],
    protoRoot: PROTO_ROOT,
    protoFiles: [PROTO_FILES.webhooks],
    shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
  });
  await app.listen(config.WEBHOOKS_GRPC_PORT);
  logger.info(
    {
      relay: Boolean(relay),
      fanout: Boolean(fanout),
      delivery: Boolean(worker),
      retry_schedule_ms: config.WEBHOOKS_RETRY_SCHEDULE,
    },
    'webhooks app started',
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // Calls, buffered events and requests in flight all get the grace period at once.
    await Promise.all([app.shutdown(), fanout?.stop(), worker?.stop()]);
    await relay?.stop();
    await nc?.drain().catch(() => undefined);
    await agent.close().catch(() => undefined);
    metricsServer?.close();
    await ds.destroy();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err) => {
  console.error(
    JSON.stringify({ level: 'fatal', service: 'webhooks', msg: 'start-up failed', err: String(err?.message ?? err) }),
  );
  process.exit(1);
});
