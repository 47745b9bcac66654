import { headers } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { EventConsumer, subjectFor, type EventEnvelope } from '@pim/events';
import { newId } from '@pim/ids';
import {
  createLogger,
  inSpan,
  injectTraceContext,
  runWithContext,
  SpanKind,
  startSpan,
  startTracing,
  traceparentOf,
  type Tracing,
} from '@pim/logging';
import { createTestStream, type TestStream } from '@pim/testing';
import { AutoRepublisher, PRODUCT_UPDATED } from '../republish/auto-republish';
import { publisherTestContext, type PublisherTestContext } from '../testing/publisher.context';

const ERROR = 2;

// The publisher's last hop of a trace: each attempt to send a publication is an HTTP client span
// in the trace of what made the publication — the write of the call that created it, the batch
// run, or the product event that made auto-republish create it (the SDK's in-memory exporter).
describe('publisher: each send to a channel continues the trace of what caused it', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing | undefined;
  let ctx: PublisherTestContext;
  let stream: TestStream;
  let consumer: EventConsumer | undefined;

  beforeAll(async () => {
    tracing = await startTracing({ serviceName: 'publisher-test', exporter, env: {} });
    ctx = await publisherTestContext('pubtrace');
    await ctx.newAttribute('color');
    stream = await createTestStream('pubtrace');
  });

  afterAll(async () => {
    await consumer?.stop();
    await stream?.destroy();
    await ctx?.close();
    await tracing?.shutdown();
  });

  beforeEach(async () => {
    await ctx.reset();
    exporter.reset();
  });

  const finished = (kind: SpanKind, name?: string): ReadableSpan[] =>
    exporter.getFinishedSpans().filter((s) => s.kind === kind && (name === undefined || s.name === name));
  const sends = (channelCode: string) => finished(SpanKind.CLIENT, `send ${channelCode}`);
  const waitForSpans = async (count: () => number, want: number, what: string): Promise<void> => {
    const until = Date.now() + 15_000;
    while (count() < want) {
      if (Date.now() > until) throw new Error(`${what}: ${count()} of ${want} spans ended`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  /** Runs fn as a gRPC handler would: inside a server span, in a request context. */
  const asCall = async <T>(name: string, fn: () => Promise<T>): Promise<{ result: T; server: string }> => {
    let server = '';
    const result = await runWithContext({ requestId: `req-${name}` }, () =>
      inSpan(name, { kind: SpanKind.SERVER }, async (span) => {
        server = span.spanContext().spanId;
        return fn();
      }),
    );
    return { result, server };
  };
  const byId = (spanId: string): ReadableSpan =>
    exporter.getFinishedSpans().find((s) => s.spanContext().spanId === spanId)!;

  it('an attempt is a client span under the write of the call that created the publication; nothing reaches the channel', async () => {
    ctx.receiver.answer(() => ({ status: 201, body: '{"url":"https://shop.example.com/p/1"}' }));
    const channel = await ctx.newChannel({
      endpoint: {
        url: `${ctx.receiver.url}?api_key=s3cret-key`,
        headers: [{ key: 'Authorization', value: 'Bearer s3cret-token' }],
      },
    });
    const product = await ctx.newProduct({ color: 'blue' });
    exporter.reset();
    const { result: created, server } = await asCall('pim.publisher.v1.PublicationsService/CreatePublication', () =>
      ctx.publications.create({ product_id: product.id, channel_id: channel._id }),
    );
    await ctx.startSender();
    await ctx.waitFor(created._id, (p) => p.status === 'published');
    await waitForSpans(() => sends(channel.code).length, 1, 'attempt span');

    const [attempt] = sends(channel.code);
    const write = byId(attempt.parentSpanContext!.spanId);
    const traceId = byId(server).spanContext().traceId;
    expect(write.name).toBe('publications.create');
    expect(write.parentSpanContext?.spanId).toBe(server);
    expect(attempt.spanContext().traceId).toBe(traceId);
    expect(attempt.attributes).toEqual({
      'http.request.method': 'POST',
      'url.full': `${ctx.receiver.url}?api_key=REDACTED`,
      'server.address': '127.0.0.1',
      'server.port': ctx.receiver.port,
      'http.response.status_code': 201,
      'pim.publication.id': created._id,
      'pim.publication.attempt': 1,
      'pim.publication.origin': 'api',
      'pim.publication.outcome': 'published',
      'pim.channel.id': channel._id,
      'pim.channel.code': channel.code,
      'pim.product.id': product.id,
    });
    expect(attempt.status.code).not.toBe(ERROR);

    // The publication keeps its creating write's context; the channel gets nothing of the trace.
    const [row] = await ctx.ds.query(`SELECT trace_context FROM publications WHERE _id = $1`, [created._id]);
    expect(row.trace_context).toEqual({ traceparent: `00-${traceId}-${write.spanContext().spanId}-01` });
    const got = ctx.receiver.requests[0];
    expect(got.headers.traceparent).toBeUndefined();
    expect(got.body).not.toContain(traceId);
  });

  it('a failed attempt is an error span, and its retry another attempt in the same trace', async () => {
    ctx.receiver.answer((_req, n) =>
      n === 1 ? { status: 503, body: '{"message":"Try later"}' } : { status: 201, body: '{}' },
    );
    const channel = await ctx.newChannel();
    const product = await ctx.newProduct({ color: 'red' });
    const { result: created } = await asCall('create', () =>
      ctx.publications.create({ product_id: product.id, channel_id: channel._id }),
    );
    await ctx.startSender();
    await ctx.waitFor(created._id, (p) => p.status === 'published');
    await waitForSpans(() => sends(channel.code).length, 2, 'attempt spans');

    const [failed, retried] = sends(channel.code).sort(
      (a, b) => Number(a.attributes['pim.publication.attempt']) - Number(b.attributes['pim.publication.attempt']),
    );
    expect(failed.attributes).toMatchObject({
      'pim.publication.attempt': 1,
      'pim.publication.outcome': 'retry',
      'http.response.status_code': 503,
      'error.type': '503',
    });
    expect(failed.status).toEqual({ code: ERROR, message: 'The channel answered 503: Try later' });
    expect(retried.attributes).toMatchObject({ 'pim.publication.attempt': 2, 'http.response.status_code': 201 });
    expect(retried.attributes['error.type']).toBeUndefined();
    expect(retried.status.code).not.toBe(ERROR);
    expect(retried.spanContext().traceId).toBe(failed.spanContext().traceId);
    expect(retried.parentSpanContext?.spanId).toBe(failed.parentSpanContext?.spanId);
  });

  it('an attempt without an answer fails with the reason in a word; a refusal with the status', async () => {
    ctx.receiver.answer(() => ({ status: 422, body: '{"message":"Unknown category"}' }));
    const refusing = await ctx.newChannel();
    // Nothing listens on port 1: the connection is refused.
    const unreachable = await ctx.newChannel({ endpoint: { url: 'http://127.0.0.1:1/listings' } });
    const product = await ctx.newProduct({ color: 'green' });
    const ids = [];
    for (const channel of [refusing, unreachable])
      ids.push((await ctx.publications.create({ product_id: product.id, channel_id: channel._id }))._id);
    await ctx.startSender({ schedule: [] });
    for (const id of ids) await ctx.waitFor(id, (p) => p.status === 'failed');
    await waitForSpans(() => sends(refusing.code).length + sends(unreachable.code).length, 2, 'attempt spans');

    const [refused] = sends(refusing.code);
    expect(refused.attributes).toMatchObject({
      'http.response.status_code': 422,
      'error.type': '422',
      'pim.publication.outcome': 'failed',
    });
    expect(refused.status).toEqual({ code: ERROR, message: 'The channel answered 422: Unknown category' });
    const [lost] = sends(unreachable.code);
    expect(lost.attributes).toMatchObject({
      'url.full': 'http://127.0.0.1:1/listings',
      'server.port': 1,
      'error.type': 'ECONNREFUSED',
      'pim.publication.outcome': 'retry',
    });
    expect(lost.attributes['http.response.status_code']).toBeUndefined();
    expect(lost.status.code).toBe(ERROR);
  });

  it("a batch's run continues the call that created the batch, and its publications' sends hang under the run", async () => {
    const channel = await ctx.newChannel({ required_attributes: ['color'] });
    const products = [await ctx.newProduct({ color: 'a' }), await ctx.newProduct({ color: 'b' })];
    const { result: batch, server } = await asCall(
      'pim.publisher.v1.PublicationBatchesService/CreatePublicationBatch',
      () => ctx.batches.create({ channel_id: channel._id, filters: { _id_in: products.map((p) => p.id).join(',') } }),
    );
    await ctx.startRunner();
    await ctx.startSender();
    await waitForSpans(() => sends(channel.code).length, 2, 'attempt spans');
    await waitForSpans(() => finished(SpanKind.CONSUMER, 'run publication-batches').length, 1, 'run span');

    const [run] = finished(SpanKind.CONSUMER, 'run publication-batches');
    const write = byId(run.parentSpanContext!.spanId);
    expect(write.name).toBe('publication_batches.create');
    expect(write.parentSpanContext?.spanId).toBe(server);
    expect(run.attributes).toMatchObject({ 'pim.job.queue': 'publication-batches', 'pim.job.id': batch._id });
    for (const attempt of sends(channel.code)) {
      expect(attempt.spanContext().traceId).toBe(run.spanContext().traceId);
      expect(attempt.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
      expect(attempt.attributes).toMatchObject({
        'pim.publication.origin': 'bulk',
        'pim.publication_batch.id': batch._id,
      });
    }
    // The run's catalog calls are in it too.
    expect(
      finished(SpanKind.CLIENT).some(
        (s) => s.name.startsWith('pim.catalog.v1.') && s.parentSpanContext?.spanId === run.spanContext().spanId,
      ),
    ).toBe(true);
  });

  it("auto-republish: the send is in the trace of the product event's consumer span", async () => {
    const channel = await ctx.newChannel({ auto_republish: true, required_attributes: ['color'] });
    const product = await ctx.newProduct({ color: 'blue' });
    const unlisted = await ctx.newProduct({ color: 'grey' });
    await ctx.startSender();
    const first = await ctx.publications.create({ product_id: product.id, channel_id: channel._id });
    await ctx.waitFor(first._id, (p) => p.status === 'published');
    await ctx.setAttributes(product.id, { color: 'red' });

    // What the relay sends: products.updated events, each with its publish span's context as NATS headers.
    exporter.reset();
    const subject = subjectFor(stream.subjectPrefix, 'catalog', 'products', 'updated');
    const publishes = new Map<string, string>();
    for (const id of [unlisted.id, product.id]) {
      const event: EventEnvelope = {
        id: newId(),
        type: PRODUCT_UPDATED,
        collection: 'products',
        occurred_at: new Date().toISOString(),
        source: 'catalog',
        actor: null,
        data: await ctx.product(id),
        schema_version: 1,
      };
      const publish = startSpan(`publish ${subject}`, { kind: SpanKind.PRODUCER });
      const h = headers();
      injectTraceContext(h, { set: (c, k, v) => c.set(k, v) }, publish);
      await jetstream(stream.nc).publish(subject, JSON.stringify(event), { msgID: event.id, headers: h });
      publish.end();
      publishes.set(id, event.id);
    }
    const republisher = new AutoRepublisher(ctx.ds, ctx, createLogger({ level: 'silent', service: 'test' }));
    consumer = new EventConsumer({
      nc: stream.nc,
      stream: stream.name,
      durable: 'publisher-auto-republish',
      filterSubjects: [subject],
      name: 'auto-republish',
      logger: createLogger({ level: 'silent', service: 'test-republish' }),
      handle: (events) => republisher.handle(events),
    });
    consumer.start();
    await waitForSpans(() => sends(channel.code).length, 1, 'attempt span');
    await waitForSpans(() => finished(SpanKind.CONSUMER).length, 2, 'consumer spans');

    const [attempt] = sends(channel.code);
    expect(attempt.attributes).toMatchObject({
      'pim.publication.origin': 'auto_republish',
      'pim.publication.attempt': 1,
    });
    const write = byId(attempt.parentSpanContext!.spanId);
    expect(write.name).toBe('publications.create');
    const process = byId(write.parentSpanContext!.spanId);
    expect(process.kind).toBe(SpanKind.CONSUMER);
    expect(process.attributes['messaging.message.id']).toBe(publishes.get(product.id));
    expect(attempt.spanContext().traceId).toBe(process.spanContext().traceId);
  });

  it("auto-republish of a batch of several events (handled outside their spans): each send joins its own event's trace", async () => {
    const channel = await ctx.newChannel({ auto_republish: true, required_attributes: ['color'] });
    const products = [await ctx.newProduct({ color: 'blue' }), await ctx.newProduct({ color: 'blue' })];
    await ctx.startSender();
    for (const product of products) {
      const p = await ctx.publications.create({ product_id: product.id, channel_id: channel._id });
      await ctx.waitFor(p._id, (x) => x.status === 'published');
      await ctx.setAttributes(product.id, { color: 'red' });
    }
    exporter.reset();
    // As EventConsumer hands a batch over: each event carries its own consumer span's context.
    const spans = products.map(() => startSpan('process products.updated', { kind: SpanKind.CONSUMER }));
    const events: EventEnvelope[] = [];
    for (const [i, product] of products.entries())
      events.push({
        id: newId(),
        type: PRODUCT_UPDATED,
        collection: 'products',
        occurred_at: new Date().toISOString(),
        source: 'catalog',
        actor: null,
        data: await ctx.product(product.id),
        schema_version: 1,
        traceparent: traceparentOf(spans[i]),
      });
    await new AutoRepublisher(ctx.ds, ctx, createLogger({ level: 'silent', service: 'test' })).handle(events);
    for (const span of spans) span.end();
    await waitForSpans(() => sends(channel.code).length, 2, 'attempt spans');

    for (const [i, product] of products.entries()) {
      const attempt = sends(channel.code).find((s) => s.attributes['pim.product.id'] === product.id)!;
      const write = byId(attempt.parentSpanContext!.spanId);
      expect(write.name).toBe('publications.create');
      expect(write.parentSpanContext?.spanId).toBe(spans[i].spanContext().spanId);
      expect(attempt.spanContext().traceId).toBe(spans[i].spanContext().traceId);
    }
  });
});
