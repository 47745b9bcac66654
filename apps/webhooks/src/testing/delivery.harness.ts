import { buildEnvelope, type EventEnvelope } from '@pim/events';
import { newId } from '@pim/ids';
import { createLogger } from '@pim/logging';
import type { DataSource } from 'typeorm';
import { DeliverySender } from '../delivery/delivery.sender';
import { DeliveryWorker, type DeliveryWorkerOptions } from '../delivery/delivery.worker';
import { FanoutRecorder } from '../delivery/fanout.recorder';
import { WebhookMetrics } from '../metrics/metrics';
import { createGuardedAgent, parseAllowList, type AddressPolicy } from '@pim/outbound';
import type { Keyring } from '@pim/secrets';
import { webhookAddressPolicy } from '../webhook/webhook.resource';

/** The policy local tests run with: loopback allowed. */
export const loopbackPolicy = () => webhookAddressPolicy(parseAllowList('127.0.0.0/8,::1/128'));

/** An event of a collection, as an app would publish it. */
export function testEvent(
  collection: string,
  action = 'updated',
  data: Record<string, unknown> = {},
  requestId?: string,
): EventEnvelope {
  return buildEnvelope({
    id: newId(),
    source: 'test',
    collection,
    action,
    data: { _id: newId(), ...data },
    occurredAt: new Date(),
    requestId,
  });
}

/** Workers built for a test, all stopped together. */
export class WorkerPool {
  readonly metrics = new WebhookMetrics();
  private readonly workers: DeliveryWorker[] = [];
  private readonly agents: ReturnType<typeof createGuardedAgent>[] = [];

  constructor(
    private readonly ds: DataSource,
    private readonly secrets: Keyring,
  ) {}

  /** Starts one worker (a replica) with test-sized timings unless overridden. */
  async start(
    overrides: Partial<DeliveryWorkerOptions> & { timeoutMs?: number; policy?: AddressPolicy } = {},
  ): Promise<DeliveryWorker> {
    const agent = createGuardedAgent({ policy: overrides.policy ?? loopbackPolicy() });
    this.agents.push(agent);
    const worker = new DeliveryWorker({
      dataSource: this.ds,
      secrets: this.secrets,
      sender: new DeliverySender({ agent, timeoutMs: overrides.timeoutMs ?? 2_000, responseBodyMax: 64 }),
      logger: createLogger({ service: 'test-worker', level: 'silent' }),
      metrics: this.metrics,
      concurrency: 16,
      perWebhookConcurrency: 8,
      leaseMs: 5_000,
      pollMs: 100,
      schedule: [50, 50, 50, 50, 50, 50, 50],
      jitter: 0,
      ...overrides,
    });
    await worker.start();
    this.workers.push(worker);
    return worker;
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.workers.splice(0).map((w) => w.stop()));
    await Promise.all(this.agents.splice(0).map((a) => a.close()));
  }
}

/** Records events like the fan-out does (inbox + deliveries). */
export const recordEvents = (ds: DataSource, events: EventEnvelope[]) => new FanoutRecorder(ds).record(events);

/** Polls a condition (no timing assertions: only a limit on how long to wait). */
export async function until(
  check: () => Promise<boolean> | boolean,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
