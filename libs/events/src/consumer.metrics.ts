import type { NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager, type ConsumerInfo, type JetStreamManager } from '@nats-io/jetstream';
import { Gauge, type Registry } from 'prom-client';
import type { Logger } from '@pim/logging';

/** A durable consumer whose lag a registry shows. */
export interface WatchedConsumer {
  nc: NatsConnection;
  stream: string;
  durable: string;
  logger: Logger;
}

/** One read of a consumer's info serves both gauges of a scrape. */
const READ_REUSE_MS = 1_000;
const READ_TIMEOUT_MS = 2_000;

interface Watched extends WatchedConsumer {
  last?: { at: number; info: Promise<ConsumerInfo | undefined> };
}

const byRegistry = new WeakMap<Registry, ConsumerLagMetrics>();
const managers = new WeakMap<NatsConnection, Promise<JetStreamManager>>();

/**
 * The lag of durable JetStream consumers on a Prometheus registry, labelled by durable name and
 * read from the consumer's info at scrape time: `pim_nats_consumer_pending` (messages of its
 * filter not yet handed out: `num_pending`) and `pim_nats_consumer_ack_pending` (handed out, not
 * yet acknowledged: `num_ack_pending`). A consumer whose info cannot be read (NATS away, the
 * durable not created yet) shows NaN. One instance per registry (`ConsumerLagMetrics.on`).
 */
export class ConsumerLagMetrics {
  private readonly watched = new Map<string, Watched>();

  /** The registry's consumer lag gauges (created on first use). */
  static on(registry: Registry): ConsumerLagMetrics {
    let metrics = byRegistry.get(registry);
    if (!metrics) {
      metrics = new ConsumerLagMetrics(registry);
      byRegistry.set(registry, metrics);
    }
    return metrics;
  }

  private constructor(registry: Registry) {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    const gauge = (name: string, help: string, read: (i: ConsumerInfo) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['durable'],
        registers: [registry],
        async collect() {
          this.reset();
          await Promise.all(
            [...self.watched.values()].map(async (w) => {
              const info = await self.info(w);
              this.set({ durable: w.durable }, info ? read(info) : NaN);
            }),
          );
        },
      });
    gauge(
      'pim_nats_consumer_pending',
      'Messages of a durable consumer not yet handed out (num_pending)',
      (i) => i.num_pending,
    );
    gauge(
      'pim_nats_consumer_ack_pending',
      'Messages a durable consumer handed out and not yet acknowledged (num_ack_pending)',
      (i) => i.num_ack_pending,
    );
  }

  /** Shows a consumer's lag until the returned function is called. */
  watch(consumer: WatchedConsumer): () => void {
    const watched: Watched = { ...consumer };
    this.watched.set(consumer.durable, watched);
    return () => {
      if (this.watched.get(consumer.durable) === watched) this.watched.delete(consumer.durable);
    };
  }

  private info(w: Watched): Promise<ConsumerInfo | undefined> {
    const now = Date.now();
    if (w.last && now - w.last.at < READ_REUSE_MS) return w.last.info;
    const info = this.read(w).catch((err: unknown) => {
      w.logger.debug({ err, durable: w.durable }, 'could not read the consumer info for metrics');
      return undefined;
    });
    w.last = { at: now, info };
    return info;
  }

  private async read(w: Watched): Promise<ConsumerInfo> {
    let manager = managers.get(w.nc);
    if (!manager) {
      manager = jetstreamManager(w.nc, { timeout: READ_TIMEOUT_MS });
      managers.set(w.nc, manager);
      manager.catch(() => managers.delete(w.nc));
    }
    return (await manager).consumers.info(w.stream, w.durable);
  }
}
