import type { AppSpec } from '@pim/app';
import { PROTO_FILES } from '@pim/contracts';
import { readAppConfig, type WebhooksAppConfig } from './config';
import { dataSourceOptions } from './data-source';
import { WebhookService } from './webhook/webhook.service';
import { webhookAddressPolicy } from './webhook/webhook.resource';
import { webhooksGrpc } from './webhooks.grpc';
import { DeliveryService } from './delivery/delivery.service';
import { cancelPendingDeliveries } from './delivery/deliveries.repository';
import { DeliverySender } from './delivery/delivery.sender';
import { DeliveryWorker } from './delivery/delivery.worker';
import { FanoutConsumer } from './fanout/fanout.consumer';
import { FanoutRecorder } from './delivery/fanout.recorder';
import { createGuardedAgent } from '@pim/outbound';
import { WebhookMetrics } from './metrics/metrics';
import { ResealLoop } from '@pim/secrets';
import { webhookSecretsStore } from './delivery/secrets.reseal';

/**
 * The webhooks app as the bootstrap runs it: its service, the delivery worker, the fan-out
 * consumer, and the re-seal loop that keeps the stored signing secrets under the current operator key.
 */
export const webhooksApp: AppSpec<WebhooksAppConfig> = {
  name: 'webhooks',
  dir: __dirname,
  config: readAppConfig,
  dataSource: dataSourceOptions,
  poolSize: 16,
  grpc: { port: (c) => c.WEBHOOKS_GRPC_PORT, protoFiles: [PROTO_FILES.webhooks] },
  // Only the relay and the fan-out talk to NATS; an API-only replica starts without it.
  needsNats: (c) => c.WEBHOOKS_FANOUT,
  metricsPort: (c) => c.WEBHOOKS_METRICS_PORT,
  wire: ({ config, ds, logger, nats, metrics: registry, deadLetters }) => {
    const metrics = new WebhookMetrics(registry);
    const policy = webhookAddressPolicy(config.WEBHOOKS_ALLOWED_TARGETS);
    if (policy.allowList.length > 0)
      logger.warn(
        { allowed: policy.allowList },
        'webhooks may reach these non-public ranges (WEBHOOKS_ALLOWED_TARGETS)',
      );
    const secrets = config.PIM_SECRETS_KEYS;
    if (secrets.builtIn)
      logger.warn(
        'PIM_SECRETS_KEYS is unset: signing secrets are sealed with the built-in development key, which protects nothing (production refuses to start without a key)',
      );
    const webhooks = new WebhookService(ds, {
      secrets,
      policy,
      secretOverlapMs: config.WEBHOOKS_SECRET_OVERLAP_MS,
      onDelete: cancelPendingDeliveries,
    });
    const agent = createGuardedAgent({ policy, connections: config.WEBHOOKS_CONCURRENCY });
    const worker = config.WEBHOOKS_DELIVERY
      ? new DeliveryWorker({
          dataSource: ds,
          secrets,
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
    const fanout =
      config.WEBHOOKS_FANOUT && nats
        ? new FanoutConsumer({
            nc: nats,
            stream: config.PIM_EVENTS_STREAM,
            subjectPrefix: config.PIM_SUBJECT_PREFIX,
            durable: config.WEBHOOKS_FANOUT_CONSUMER,
            ackWaitMs: config.WEBHOOKS_FANOUT_ACK_WAIT_MS,
            recorder: new FanoutRecorder(ds),
            logger,
            metrics,
            onDeliveries: () => worker?.wake(),
            deadLetters,
            maxDeliver: config.CONSUMER_MAX_DELIVER,
          })
        : undefined;
    // Every replica re-seals (at start, then every 10 minutes): values in clear or under an older key.
    const reseal = new ResealLoop({ keyring: secrets, stores: [webhookSecretsStore(ds)], logger });
    return {
      services: [webhooksGrpc(webhooks, new DeliveryService(ds), logger)],
      loops: [worker, fanout, reseal],
      close: [() => agent.close()],
      started: {
        fanout: Boolean(fanout),
        delivery: Boolean(worker),
        retry_schedule_ms: config.WEBHOOKS_RETRY_SCHEDULE,
        secrets_key: secrets.currentKeyId,
      },
    };
  },
};
