import 'reflect-metadata';
import { connect } from '@nats-io/transport-node';
import { createDataSource } from '@pim/db';
import { createLogger } from '@pim/logging';
import { GrpcApp } from '@pim/rpc';
import { OutboxRelay, ensureStream } from '@pim/events';
import { PROTO_FILES, PROTO_ROOT } from '@pim/contracts';
import { readConfig } from './config';
import { dataSourceOptions } from './data-source';
import { taxonomyGrpc, taxonomyServices } from './taxonomy/taxonomy.module';
import { attributeServices, attributesGrpc } from './attribute/attributes.module';
import { productServices, productsGrpc } from './product/products.module';
import { relationServices, relationsGrpc } from './relation/relations.module';
import { CompletenessWorker } from './completeness/completeness.worker';

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger({ service: 'catalog', level: config.LOG_LEVEL });

  const ds = createDataSource(dataSourceOptions(config.DATABASE_URL));
  await ds.initialize();
  const nc = await connect({ servers: config.NATS_URL, name: 'pim-catalog', maxReconnectAttempts: -1 });
  await ensureStream(nc, { name: config.PIM_EVENTS_STREAM, subjects: [`${config.PIM_SUBJECT_PREFIX}pim.>`] });

  const relay = config.OUTBOX_RELAY
    ? new OutboxRelay({
        dataSource: ds,
        nc,
        stream: config.PIM_EVENTS_STREAM,
        subjectPrefix: config.PIM_SUBJECT_PREFIX,
        logger,
      })
    : undefined;
  await relay?.start();
  const completeness = config.COMPLETENESS_WORKER ? new CompletenessWorker({ dataSource: ds, logger }) : undefined;
  await completeness?.start();

  const app = new GrpcApp({
    logger,
    services: [
      ...taxonomyGrpc(taxonomyServices(ds), logger),
      ...attributesGrpc(attributeServices(ds), logger),
      ...productsGrpc(productServices(ds), logger),
      ...relationsGrpc(relationServices(ds), logger),
    ],
    protoRoot: PROTO_ROOT,
    protoFiles: [PROTO_FILES.taxonomy, PROTO_FILES.attributes, PROTO_FILES.products, PROTO_FILES.relations],
    shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
  });
  await app.listen(config.CATALOG_GRPC_PORT);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await app.shutdown();
    await completeness?.stop();
    await relay?.stop();
    await nc.drain().catch(() => undefined);
    await ds.destroy();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err) => {
  console.error(
    JSON.stringify({ level: 'fatal', service: 'catalog', msg: 'start-up failed', err: String(err?.message ?? err) }),
  );
  process.exit(1);
});
