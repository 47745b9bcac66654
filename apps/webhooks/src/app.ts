import type { AppSpec } from '@pim/app';
import { PROTO_FILES } from '@pim/contracts';
import { readConfig, type WebhooksConfig } from './config';
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

/** The webhooks app as the bootstrap runs it: its service, the delivery worker and the fan-out consumer. */
export const webhooksApp: AppSpec<WebhooksConfig> = {
  name: 'webhooks',
  dir: __dirname,
  config: readConfig,
  dataSource: dataSourceOptions,
  poolSize: 16,
  grpc: { port: (c) => c.WEBHOOKS_GRPC_PORT, protoFiles: [PROTO_FILES.webhooks] },
  // Only the relay and the fan-out talk to NATS; an API-only replica starts without it.
  needsNats: (c) => c.WEBHOOKS_FANOUT,
  metricsPort: (c) => c.WEBHOOKS_METRICS_PORT,
  wire: ({ config, ds, logger, nats, metrics: registry }) => {
    const metrics = new WebhookMetrics(registry);
    const policy = webhookAddressPolicy(config.WEBHOOKS_ALLOWED_TARGETS);
    if (policy.allowList.length > 0)
      logger.warn(
        { allowed: policy.allowList },
        'webhooks may reach these non-public ranges (WEBHOOKS_ALLOWED_TARGETS)',
      );
    const webhooks = new WebhookService(ds, {
      policy,
      secretOverlapMs: config.WEBHOOKS_SECRET_OVERLAP_MS,
      onDelete: cancelPendingDeliveries,
    });
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
          })
        : undefined;
    return {
      services: [webhooksGrpc(webhooks, new DeliveryService(ds), logger)],
      loops: [worker, fanout],
      close: [() => agent.close()],
      started: {
        fanout: Boolean(fanout),
        delivery: Boolean(worker),
        retry_schedule_ms: config.WEBHOOKS_RETRY_SCHEDULE,
      },
    };
  },
};
