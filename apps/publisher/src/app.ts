import type { AppSpec } from '@pim/app';
import { PROTO_FILES } from '@pim/contracts';
import { EventConsumer } from '@pim/events';
import { AddressPolicy, createGuardedAgent } from '@pim/outbound';
import { ResealLoop } from '@pim/secrets';
import { readAppConfig, type PublisherAppConfig } from './config';
import { dataSourceOptions } from './data-source';
import { publicationBatchesGrpc } from './publication-batch/publication-batch.grpc';
import { channelsGrpc } from './channel/channel.grpc';
import { channelCredentialsStore } from './channel/channel.secrets';
import { catalogLink } from './links/catalog.link';
import { publicationsGrpc } from './publication/publication.grpc';
import { publisherRecords } from './publisher.records';
import { AutoRepublisher, PRODUCT_UPDATED } from './republish/auto-republish';
import { PublicationSender } from './sender/publication.sender';
import { BatchRunner } from './publication-batch/publication-batch.runner';

/**
 * The publisher app as the bootstrap runs it: channels and publications on the record engine, the
 * sender that takes due publications to their channels (any replica), and the catalog link that
 * reads products and records outcomes on them, and the re-seal loop that keeps the channels'
 * stored credentials under the current operator key.
 */
export const publisherApp: AppSpec<PublisherAppConfig> = {
  name: 'publisher',
  dir: __dirname,
  config: readAppConfig,
  dataSource: dataSourceOptions,
  grpc: { port: (c) => c.PUBLISHER_GRPC_PORT, protoFiles: [PROTO_FILES.publisher] },
  // The relay and auto-republish talk to NATS; an API-only replica without them starts without it.
  needsNats: (c) => c.PUBLISHER_AUTO_REPUBLISH,
  metricsPort: (c) => c.PUBLISHER_METRICS_PORT,
  wire: ({ ds, logger, config, nats, metrics, deadLetters }) => {
    const policy = new AddressPolicy(config.PUBLISHER_ALLOWED_TARGETS, {
      subject: 'channels',
      setting: 'PUBLISHER_ALLOWED_TARGETS',
    });
    if (policy.allowList.length > 0)
      logger.warn(
        { allowed: policy.allowList },
        'channels may be reached at these non-public ranges (PUBLISHER_ALLOWED_TARGETS)',
      );
    const secrets = config.PIM_SECRETS_KEYS;
    if (secrets.builtIn)
      logger.warn(
        'PIM_SECRETS_KEYS is unset: channel credentials are sealed with the built-in development key, which protects nothing (production refuses to start without a key)',
      );
    const catalog = catalogLink(config.CATALOG_GRPC_URL);
    const records = publisherRecords(ds, catalog, policy, secrets);
    const agent = createGuardedAgent({ policy, connections: config.PUBLISHER_CONCURRENCY });
    const sender = config.PUBLISHER_SENDER
      ? new PublicationSender({
          dataSource: ds,
          publications: records.repository,
          catalog,
          secrets,
          agent,
          logger,
          concurrency: config.PUBLISHER_CONCURRENCY,
          leaseMs: config.PUBLISHER_LEASE_MS,
          pollMs: config.PUBLISHER_POLL_MS,
          schedule: config.PUBLISHER_RETRY_SCHEDULE,
          jitter: config.PUBLISHER_RETRY_JITTER,
          stopGraceMs: config.SHUTDOWN_GRACE_MS,
          metrics,
        })
      : undefined;
    // Batches are run by the replicas that send.
    const runner = config.PUBLISHER_SENDER
      ? new BatchRunner({
          dataSource: ds,
          batches: records.batchesRepository,
          publications: records.repository,
          catalog,
          logger,
          pollMs: config.PUBLISHER_POLL_MS * 5,
        })
      : undefined;
    const republisher = new AutoRepublisher(ds, records, logger);
    const autoRepublish =
      config.PUBLISHER_AUTO_REPUBLISH && nats
        ? new EventConsumer({
            nc: nats,
            stream: config.PIM_EVENTS_STREAM,
            durable: config.PUBLISHER_AUTO_REPUBLISH_CONSUMER,
            filterSubjects: [`${config.PIM_SUBJECT_PREFIX}pim.catalog.${PRODUCT_UPDATED}`],
            name: 'auto-republish',
            logger,
            // Events before the publisher first ran concern no publication.
            deliverPolicy: 'new',
            // A product event that keeps failing (a bug, not an outage) must not hold back the
            // others: it is kept in the app's dead letters (source `auto-republish`) to re-drive.
            maxDeliver: config.CONSUMER_MAX_DELIVER,
            deadLetters,
            handle: (events) => republisher.handle(events),
            metrics,
          })
        : undefined;
    // Every replica re-seals (at start, then every 10 minutes): values in clear or under an older key.
    const reseal = new ResealLoop({ keyring: secrets, stores: [channelCredentialsStore(ds)], logger });
    return {
      services: [
        publicationBatchesGrpc(records.batches, logger),
        channelsGrpc(records.channels, catalog, logger),
        publicationsGrpc(records.publications, records.moves, logger),
      ],
      loops: [sender, runner, autoRepublish, reseal],
      close: [() => agent.close(), () => catalog.close()],
      started: {
        sender: Boolean(sender),
        auto_republish: Boolean(autoRepublish),
        retry_schedule_ms: config.PUBLISHER_RETRY_SCHEDULE,
        secrets_key: secrets.currentKeyId,
      },
    };
  },
};
