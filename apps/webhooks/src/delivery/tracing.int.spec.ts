import 'reflect-metadata';
import { headers } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { subjectFor } from '@pim/events';
import {
  createLogger,
  inSpan,
  injectTraceContext,
  runWithContext,
  SpanKind,
  startSpan,
  startTracing,
  type Tracing,
} from '@pim/logging';
import { createTestStream, startReceiver, type TestReceiver, type TestStream } from '@pim/testing';
import { webhooksTestContext, type WebhooksTestContext } from '../testing/webhooks.context';
import { WorkerPool, loopbackPolicy, testEvent, until } from '../testing/delivery.harness';
import { FanoutConsumer } from '../fanout/fanout.consumer';
import { FanoutRecorder } from './fanout.recorder';

// The last hops of a trace: an event's message (its publish span's context in the NATS headers) →
// the fan-out's consumer span → the delivery, whose attempt span (the POST) is that span's child
// (the SDK's in-memory exporter).
describe('webhooks: the delivery attempt continues the trace of the event it delivers', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing | undefined;
  let ctx: WebhooksTestContext;
  let stream: TestStream;
  let receiver: TestReceiver;
  let pool: WorkerPool;
  let fanout: FanoutConsumer | undefined;

  beforeAll(async () => {
    tracing = await startTracing({ serviceName: 'webhooks-test', exporter, env: {} });
    ctx = await webhooksTestContext({ policy: loopbackPolicy() });
    stream = await createTestStream('whtrace');
    receiver = await startReceiver();
    pool = new WorkerPool(ctx.ds, ctx.secrets);
  });

  afterAll(async () => {
    await fanout?.stop();
    await pool.stopAll();
    await receiver.close();
    await stream.destroy();
    await ctx.close();
    await tracing?.shutdown();
  });

  const finished = (kind: SpanKind, name?: string): ReadableSpan[] =>
    exporter.getFinishedSpans().filter((s) => s.kind === kind && (name === undefined || s.name === name));

  it('fan-out span → inbox → attempt span, in the trace of the publish; nothing of it reaches the receiver', async () => {
    const { webhook } = await ctx.newWebhook({ collection: 'products', url: receiver.url });
    exporter.reset();
    fanout = new FanoutConsumer({
      nc: stream.nc,
      stream: stream.name,
      subjectPrefix: stream.subjectPrefix,
      durable: 'webhooks-fanout',
      recorder: new FanoutRecorder(ctx.ds),
      logger: createLogger({ service: 'test-fanout', level: 'silent' }),
      ackWaitMs: 2_000,
    });
    fanout.start();
    await pool.start();

    // What the outbox relay sends: the event, with its publish span's context as NATS headers.
    const event = testEvent('products', 'created', { code: 'T-1' });
    const publish = startSpan('publish pim.test.products.created', { kind: SpanKind.PRODUCER });
    const h = headers();
    injectTraceContext(h, { set: (c, k, v) => c.set(k, v) }, publish);
    await jetstream(stream.nc).publish(
      subjectFor(stream.subjectPrefix, 'test', 'products', 'created'),
      JSON.stringify(event),
      { msgID: event.id, headers: h },
    );
    publish.end();

    await receiver.waitFor(1);
    await until(() => finished(SpanKind.CLIENT).length === 1, 10_000, 'attempt span ended');
    const traceId = publish.spanContext().traceId;
    const [consumer] = finished(SpanKind.CONSUMER);
    const [attempt] = finished(SpanKind.CLIENT);
    expect(consumer.spanContext().traceId).toBe(traceId);
    expect(consumer.parentSpanContext?.spanId).toBe(publish.spanContext().spanId);
    expect(attempt.name).toBe('deliver products.created');
    expect(attempt.spanContext().traceId).toBe(traceId);
    expect(attempt.parentSpanContext?.spanId).toBe(consumer.spanContext().spanId);
    expect(attempt.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.response.status_code': 200,
      'server.address': '127.0.0.1',
      'url.full': expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//),
      'pim.webhook.id': webhook._id,
      'pim.event.id': event.id,
      'pim.delivery.attempt': 1,
      'pim.delivery.outcome': 'success',
    });
    expect(attempt.status.code).toBe(0);

    // The inbox keeps the fan-out's context with the event; the receiver gets neither.
    const [stored] = await ctx.ds.query(
      `SELECT envelope->>'traceparent' AS tp FROM webhooks.inbox WHERE event_id = $1`,
      [event.id],
    );
    expect(stored.tp).toBe(`00-${traceId}-${consumer.spanContext().spanId}-01`);
    const got = receiver.requests[0];
    expect(got.headers.traceparent).toBeUndefined();
    expect(got.body).not.toContain('traceparent');
    expect(got.body).not.toContain(traceId);
  });

  it("a test event's attempt joins the trace of the request that asked for it", async () => {
    const { webhook } = await ctx.newWebhook({ collection: 'brands', url: receiver.url });
    exporter.reset();
    const before = receiver.requests.length;
    let traceId = '';
    await runWithContext({ requestId: 'req-test-event' }, () =>
      inSpan('pim.webhooks.v1.WebhooksService/SendTestEvent', { kind: SpanKind.SERVER }, async (span) => {
        traceId = span.spanContext().traceId;
        await ctx.deliveries.sendTest(webhook._id);
      }),
    );
    await receiver.waitFor(before + 1);
    await until(() => finished(SpanKind.CLIENT, 'deliver webhooks.test').length === 1, 10_000, 'test attempt');
    const [attempt] = finished(SpanKind.CLIENT, 'deliver webhooks.test');
    const [server] = finished(SpanKind.SERVER);
    expect(attempt.spanContext().traceId).toBe(traceId);
    expect(attempt.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
  });
});
