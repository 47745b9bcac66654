import 'reflect-metadata';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { DataSource } from 'typeorm';
import { PROTO_FILES, PROTO_ROOT } from '@pim/contracts';
import { createDataSource, IdempotentCallStore, pgPoolOf, watchPools, type AppDataSourceOptions } from '@pim/db';
import { DeadLetter, DeadLetterStore, OutboxEvent, OutboxMetrics, OutboxRelay, ensureStream } from '@pim/events';
import { createLogger, startTracing, type Logger } from '@pim/logging';
import { GrpcApp, type ServiceRegistration } from '@pim/rpc';
import { deadLettersGrpc } from './dead-letters.grpc';
import { serveMetrics } from './metrics';
import { withRetries } from './retry';
import { Shutdown } from './shutdown';
import { packageVersion } from './version';

/** Variables every owner app reads (see `ownerSchema` in @pim/config). */
export interface OwnerConfig {
  LOG_LEVEL: string;
  DATABASE_URL: string;
  NATS_URL: string;
  PIM_EVENTS_STREAM: string;
  PIM_SUBJECT_PREFIX: string;
  OUTBOX_RELAY: boolean;
  OUTBOX_MAX_BACKOFF_MS: number;
  OUTBOX_MAX_ATTEMPTS: number;
  CONSUMER_MAX_DELIVER: number;
  SHUTDOWN_GRACE_MS: number;
  DB_POOL_SIZE?: number;
}

/** A background loop the app runs (outbox relay, workers, consumers): started after the database and NATS, stopped before them. */
export interface BackgroundLoop {
  start(): Promise<void> | void;
  stop(): Promise<void>;
}

/** What an app's wiring has at hand. */
export interface AppContext<C extends OwnerConfig> {
  config: C;
  logger: Logger;
  ds: DataSource;
  /** The NATS connection, when this replica needs one (`needsNats`, or the relay runs). */
  nats?: NatsConnection;
  /**
   * The app's Prometheus registry; register the app's own metrics on it. The bootstrap puts on it
   * the default process metrics, gRPC calls, the database pool and the outbox (docs/metrics.md).
   */
  metrics: Registry;
  /**
   * The app's dead letters, when its entities include them: give it to each EventConsumer
   * (`deadLetters`, with `maxDeliver: config.CONSUMER_MAX_DELIVER`) so the events a consumer gives
   * up on are kept and can be re-driven. The bootstrap serves them (DeadLettersService).
   */
  deadLetters?: DeadLetterStore;
}

/** What an app adds to the bootstrap: its gRPC services, its loops and anything else it must close. */
export interface AppWiring {
  services: ServiceRegistration[];
  /** Started in order after the relay; stopped together while the gRPC server drains its calls. */
  loops?: (BackgroundLoop | undefined)[];
  /** Closed after the loops and the relay, before NATS and the database (an HTTP agent...). */
  close?: (() => Promise<void> | void)[];
  /** Extra fields of the "started" log line. */
  started?: Record<string, unknown>;
}

/** An app, declared for `runApp`. */
export interface AppSpec<C extends OwnerConfig> {
  /** The app's name: logs, the event source, the NATS connection name (`pim-<name>`). */
  name: string;
  /** The folder of the app's `main.ts` (`__dirname`): its package.json gives the version every log line carries. */
  dir: string;
  /** Reads and validates the environment; a bad variable stops the start with its name. */
  config: () => C;
  /** The app's schema, entities and migrations. */
  dataSource: (url: string) => AppDataSourceOptions;
  /** Connections in the app's pool (default TypeORM's 10). */
  poolSize?: number;
  /** The gRPC port and the .proto files (under protos/) of the services, for reflection. */
  grpc: { port: (config: C) => number; protoFiles: string[] };
  /** Whether this replica needs NATS besides the relay (a consumer). */
  needsNats?: (config: C) => boolean;
  /** The port of `/metrics` (0 or absent: no metrics endpoint). */
  metricsPort?: (config: C) => number;
  /** The app's own parts, built once the database and NATS are up. */
  wire: (ctx: AppContext<C>) => AppWiring | Promise<AppWiring>;
}

/** A running app, for tests and tools: its port and its context, and how to stop it without exiting. */
export interface RunningApp<C extends OwnerConfig> {
  port: number;
  context: AppContext<C>;
  shutdown: Shutdown;
}

/**
 * Starts a gRPC app in this order: config (validated first), logger with the app's version,
 * tracing (when the OTEL_* variables ask for it), database, NATS with retries (and the events
 * stream) when this replica needs it, the outbox relay, the app's wiring and loops, metrics, then
 * the gRPC server with health and reflection and, for an app with an outbox, its dead letters
 * (pim.platform.v1.DeadLettersService) —
 * reporting SERVING only once all of that is up. On SIGTERM/SIGINT it reports NOT_SERVING and lets
 * calls in flight finish while the loops stop, then stops the relay, closes what the app asked,
 * drains NATS, closes metrics and the database, flushes the spans left (tracing on), and exits 0.
 * A failure during start-up is one fatal log line and exit code 1.
 */
export function runApp<C extends OwnerConfig>(spec: AppSpec<C>): Promise<RunningApp<C> | undefined> {
  return startApp(spec).catch((err: unknown) => {
    console.error(
      JSON.stringify({
        level: 'fatal',
        service: spec.name,
        msg: 'start-up failed',
        err: String((err as Error)?.message ?? err),
      }),
    );
    process.exit(1);
    return undefined;
  });
}

/** `runApp` without the exit on failure (the error is thrown) and without signal handlers: for tests. */
export async function startApp<C extends OwnerConfig>(
  spec: AppSpec<C>,
  opts: { signals?: boolean; exit?: (code: number) => void } = {},
): Promise<RunningApp<C>> {
  const config = spec.config();
  const version = packageVersion(spec.dir);
  const logger = createLogger({ service: spec.name, version, level: config.LOG_LEVEL });
  // Off unless the standard OTEL_* variables ask for it (docs/observability.md).
  const tracing = await startTracing({ serviceName: spec.name, version, logger });
  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics, prefix: `pim_${spec.name.replace(/-/g, '_')}_` });

  const ds = createDataSource({
    ...spec.dataSource(config.DATABASE_URL),
    ...(spec.poolSize ? { poolSize: spec.poolSize } : {}),
    ...(config.DB_POOL_SIZE ? { poolSize: config.DB_POOL_SIZE } : {}),
  });
  await ds.initialize();
  watchPools(metrics, [{ name: 'main', pool: () => pgPoolOf(ds) }]);
  const outboxMetrics = ds.hasMetadata(OutboxEvent)
    ? new OutboxMetrics({ registry: metrics, dataSource: ds, logger })
    : undefined;

  let nats: NatsConnection | undefined;
  if (config.OUTBOX_RELAY || spec.needsNats?.(config)) {
    nats = await withRetries(logger, 'connecting to NATS', () =>
      connect({
        servers: config.NATS_URL,
        name: `pim-${spec.name}`,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 250,
        // No async stack captured per request: a third of the relay's CPU per publish (docs/benchmarks.md, Outbox relay).
        noAsyncTraces: true,
      }),
    );
    const nc = nats;
    await withRetries(logger, 'ensuring the events stream', () =>
      ensureStream(nc, { name: config.PIM_EVENTS_STREAM, subjects: [`${config.PIM_SUBJECT_PREFIX}pim.>`] }),
    );
  }
  const relay =
    config.OUTBOX_RELAY && nats
      ? new OutboxRelay({
          dataSource: ds,
          nc: nats,
          stream: config.PIM_EVENTS_STREAM,
          subjectPrefix: config.PIM_SUBJECT_PREFIX,
          logger,
          maxBackoffMs: config.OUTBOX_MAX_BACKOFF_MS,
          maxAttempts: config.OUTBOX_MAX_ATTEMPTS,
          metrics: outboxMetrics,
        })
      : undefined;
  await relay?.start();

  const deadLetters =
    ds.hasMetadata(OutboxEvent) && ds.hasMetadata(DeadLetter)
      ? new DeadLetterStore({ dataSource: ds, logger })
      : undefined;
  const context: AppContext<C> = { config, logger, ds, nats, metrics, deadLetters };
  const wiring = await spec.wire(context);
  const idempotentCalls = new IdempotentCallStore(ds);
  const loops = [...(wiring.loops ?? []), purgeLoop(logger, idempotentCalls)].filter(
    (l): l is BackgroundLoop => l !== undefined,
  );
  for (const loop of loops) await loop.start();

  const metricsPort = spec.metricsPort?.(config) ?? 0;
  const metricsServer = metricsPort > 0 ? await serveMetrics(metrics, metricsPort, logger) : undefined;

  const grpc = new GrpcApp({
    logger,
    services: deadLetters ? [...wiring.services, deadLettersGrpc(deadLetters, logger)] : wiring.services,
    protoRoot: PROTO_ROOT,
    protoFiles: deadLetters ? [...spec.grpc.protoFiles, PROTO_FILES.deadLetters] : spec.grpc.protoFiles,
    shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
    metrics,
    idempotentCalls,
  });
  const port = await grpc.listen(spec.grpc.port(config));

  const shutdown = new Shutdown(logger, opts.exit)
    .stage(
      { name: 'gRPC server', run: () => grpc.shutdown() },
      ...loops.map((loop, i) => ({ name: `loop ${i + 1}`, run: () => loop.stop() })),
    )
    .stage(relay && { name: 'outbox relay', run: () => relay.stop() })
    .stage(...(wiring.close ?? []).map((close, i) => ({ name: `close ${i + 1}`, run: close })))
    .stage(
      nats && { name: 'NATS', run: () => nats.drain() },
      metricsServer && { name: 'metrics', run: () => new Promise((r) => metricsServer.close(() => r(undefined))) },
    )
    .stage({ name: 'database', run: () => ds.destroy() })
    .stage(tracing && { name: 'tracing', run: () => tracing.shutdown() });
  if (opts.signals !== false) shutdown.onSignals();
  logger.info(
    { port, version, relay: Boolean(relay), tracing: Boolean(tracing), ...wiring.started },
    `${spec.name} app started`,
  );
  return { port, context, shutdown };
}

/** How often a replica purges the idempotent calls past their retention (any replica may; the deletes are idempotent). */
const PURGE_EVERY_MS = 3_600_000;

/** Purges the app's idempotent calls past their retention, hourly, from a random first moment (replicas spread out). */
function purgeLoop(logger: Logger, store: IdempotentCallStore): BackgroundLoop {
  let timer: NodeJS.Timeout | undefined;
  const run = () => {
    store
      .purgeExpired()
      .then((n) => n > 0 && logger.info({ purged: n }, 'idempotent calls past their retention purged'))
      .catch((err: unknown) => logger.warn({ err }, 'purging idempotent calls failed; the next hour tries again'))
      .finally(() => {
        if (timer) timer = setTimeout(run, PURGE_EVERY_MS).unref();
      });
  };
  return {
    start() {
      timer = setTimeout(run, Math.floor(Math.random() * PURGE_EVERY_MS)).unref();
    },
    stop() {
      clearTimeout(timer);
      timer = undefined;
      return Promise.resolve();
    },
  };
}
