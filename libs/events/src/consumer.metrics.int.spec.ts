import { jetstream } from '@nats-io/jetstream';
import { Registry } from 'prom-client';
import { newId } from '@pim/ids';
import { createTestStream, type TestStream } from '@pim/testing';
import { EventConsumer } from './event.consumer';
import { buildEnvelope, subjectFor } from './event.envelope';
import { quietLogger, waitFor } from './testing/outbox.fixtures';

/** The value of a metric's series for one durable (undefined when there is none). */
async function value(registry: Registry, name: string, durable: string): Promise<number | undefined> {
  const prefix = `${name}{durable="${durable}"} `;
  const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(prefix.length));
}

// The lag gauges of a durable consumer, read from the real consumer's info at scrape time.
describe('consumer lag metrics (real NATS)', () => {
  let stream: TestStream;

  beforeAll(async () => {
    stream = await createTestStream('consumermetrics');
  });
  afterAll(async () => {
    await stream?.destroy();
  });

  it('shows num_pending and num_ack_pending by durable while the consumer runs, back to 0 once it caught up', async () => {
    const js = jetstream(stream.nc);
    for (let i = 0; i < 30; i++) {
      const e = buildEnvelope({
        id: newId(),
        source: 'catalog',
        collection: 'products',
        action: 'updated',
        data: { i },
        occurredAt: new Date(),
      });
      await js.publish(subjectFor(stream.subjectPrefix, 'catalog', 'products', 'updated'), JSON.stringify(e), {
        msgID: e.id,
      });
    }
    const registry = new Registry();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let handled = 0;
    const consumer = new EventConsumer({
      nc: stream.nc,
      stream: stream.name,
      durable: 'lagging',
      filterSubjects: [`${stream.subjectPrefix}pim.>`],
      logger: quietLogger(),
      name: 'lag test',
      maxAckPending: 10,
      metrics: registry,
      handle: async (events) => {
        await held;
        handled += events.length;
      },
    });
    consumer.start();
    try {
      // At most 10 handed out and held by the handler; the other 20 wait in the stream.
      await waitFor(
        async () => (await value(registry, 'pim_nats_consumer_ack_pending', 'lagging')) === 10,
        '10 messages handed out',
      );
      expect(await value(registry, 'pim_nats_consumer_pending', 'lagging')).toBe(20);

      release();
      await waitFor(async () => handled === 30, 'every event handled');
      await waitFor(
        async () =>
          (await value(registry, 'pim_nats_consumer_pending', 'lagging')) === 0 &&
          (await value(registry, 'pim_nats_consumer_ack_pending', 'lagging')) === 0,
        'the consumer to have caught up',
      );
    } finally {
      release();
      await consumer.stop();
    }
    // A stopped consumer is no longer shown.
    expect(await value(registry, 'pim_nats_consumer_pending', 'lagging')).toBeUndefined();
  });
});
