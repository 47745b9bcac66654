import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import type { DataSource } from 'typeorm';
import {
  currentContext,
  inSpan,
  runWithContext,
  SpanKind,
  startTracing,
  traceparentOf,
  type Tracing,
} from '@pim/logging';
import { createTestDatabase, createTestStream, type TestDatabase, type TestStream } from '@pim/testing';
import { EventConsumer, OutboxRelay, recordEvent, recordEvents, type EventEnvelope } from './index';
import { outboxDataSource, outboxRow, quietLogger, waitFor } from './testing/outbox.fixtures';

// The trace of a write goes on with its event: the envelope keeps the writer's trace context, the
// relay's publish is a producer span of that trace carrying its own context as NATS headers, and a
// consumer's span continues it and hands it to the handler (the SDK's in-memory exporter).
describe('events: trace context through the outbox, the relay and a consumer', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing | undefined;
  let db: TestDatabase;
  let stream: TestStream;
  let ds: DataSource;
  let relay: OutboxRelay;
  let consumer: EventConsumer | undefined;

  beforeAll(async () => {
    tracing = await startTracing({ serviceName: 'events-test', exporter, env: {} });
    db = await createTestDatabase('eventstrace');
    stream = await createTestStream('eventstrace');
    ds = await outboxDataSource(db.url, 'traced');
    relay = new OutboxRelay({
      dataSource: ds,
      nc: stream.nc,
      stream: stream.name,
      subjectPrefix: stream.subjectPrefix,
      logger: quietLogger(),
      pollMs: 50,
    });
  });

  afterAll(async () => {
    await consumer?.stop();
    await relay.stop();
    await ds.destroy();
    await stream.destroy();
    await db.drop();
    await tracing?.shutdown();
  });

  it('one trace from the write through the publish to the consumer and what its handler does', async () => {
    const handled: { event: EventEnvelope; activeTraceparent?: string; requestId?: string }[] = [];
    consumer = new EventConsumer({
      nc: stream.nc,
      stream: stream.name,
      durable: 'trace-test',
      filterSubjects: [`${stream.subjectPrefix}pim.>`],
      logger: quietLogger(),
      name: 'trace test',
      handle: async (events) => {
        for (const event of events)
          handled.push({ event, activeTraceparent: traceparentOf(), requestId: currentContext()?.requestId });
      },
    });

    let write: { traceId: string; spanId: string } | undefined;
    const recorded = await runWithContext({ requestId: 'req-trace' }, () =>
      inSpan('products.create', {}, async (span) => {
        write = span.spanContext();
        return ds.transaction((m) =>
          recordEvent(m, { source: 'catalog', collection: 'products', action: 'created', data: { _id: 'p1' } }),
        );
      }),
    );
    // Stored with the event, beside its request id.
    expect(recorded.traceparent).toBe(`00-${write!.traceId}-${write!.spanId}-01`);
    expect((await outboxRow(ds, recorded.id))!.envelope.traceparent).toBe(recorded.traceparent);

    await relay.start();
    consumer.start();
    await waitFor(async () => handled.length === 1, 'the event handled');
    await waitFor(async () => exporter.getFinishedSpans().some((s) => s.kind === SpanKind.CONSUMER), 'spans ended');

    const spans = exporter.getFinishedSpans();
    const producer = spans.find((s) => s.kind === SpanKind.PRODUCER)!;
    const consumed = spans.find((s) => s.kind === SpanKind.CONSUMER)!;
    expect(producer.name).toBe('publish pim.catalog.products.created');
    expect(producer.spanContext().traceId).toBe(write!.traceId);
    expect(producer.parentSpanContext?.spanId).toBe(write!.spanId);
    expect(producer.attributes).toMatchObject({
      'messaging.system': 'nats',
      'messaging.message.id': recorded.id,
      'messaging.destination.name': `${stream.subjectPrefix}pim.catalog.products.created`,
    });
    expect(consumed.name).toBe(`process ${stream.subjectPrefix}pim.catalog.products.created`);
    expect(consumed.spanContext().traceId).toBe(write!.traceId);
    // Through the NATS header: the consumer's parent is the publish, not the write.
    expect(consumed.parentSpanContext?.spanId).toBe(producer.spanContext().spanId);
    expect(consumed.attributes).toMatchObject({
      'messaging.consumer.group.name': 'trace-test',
      'pim.event.deliveries': 1,
    });

    // The handler sees the consumer span's context in the event and as the active span.
    const own = `00-${write!.traceId}-${consumed.spanContext().spanId}-01`;
    expect(handled[0].event.traceparent).toBe(own);
    expect(handled[0].activeTraceparent).toBe(own);
  });

  it('an event recorded outside any span starts its trace at the publish; a batch keeps one trace per event', async () => {
    exporter.reset();
    const [a, b] = await ds.transaction((m) =>
      recordEvents(m, [
        { source: 'catalog', collection: 'brands', action: 'created', data: {} },
        { source: 'catalog', collection: 'brands', action: 'updated', data: {} },
      ]),
    );
    expect(a.traceparent).toBeUndefined();
    expect(b.traceparent).toBeUndefined();
    await waitFor(
      async () => exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CONSUMER).length === 2,
      'both consumed',
    );
    const spans = exporter.getFinishedSpans();
    const producers = spans.filter((s) => s.kind === SpanKind.PRODUCER);
    expect(producers.map((p) => p.parentSpanContext)).toEqual([undefined, undefined]);
    for (const c of spans.filter((s) => s.kind === SpanKind.CONSUMER)) {
      const p = producers.find((x) => x.spanContext().spanId === c.parentSpanContext?.spanId)!;
      expect(c.spanContext().traceId).toBe(p.spanContext().traceId);
    }
    expect(new Set(producers.map((p) => p.spanContext().traceId)).size).toBe(2);
  });
});
