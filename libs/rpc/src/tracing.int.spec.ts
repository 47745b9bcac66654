import { Writable } from 'node:stream';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { PROTO_FILES, PROTO_ROOT, webhooks as pb } from '@pim/contracts';
import { NotFoundError } from '@pim/errors';
import { createLogger, inSpan, SpanKind, startTracing, type Tracing } from '@pim/logging';
import { GrpcApp, createRpcClient, unary } from './index';

const sample: pb.Webhook = {
  id: '6740a1b2c3d4e5f601234567',
  collection: 'products',
  headers: [],
  body: [],
  enabled: true,
  version: 1,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
};

// The trace context crosses a real gRPC call in its metadata: client span → server span → what the
// handler logs, all in the caller's trace (the SDK's in-memory exporter).
describe('rpc: client and server spans, W3C trace context in the metadata', () => {
  const exporter = new InMemorySpanExporter();
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    service: 'rpc-trace-test',
    destination: new Writable({
      write(chunk, _enc, cb) {
        lines.push(JSON.parse(chunk.toString()));
        cb();
      },
    }),
  });
  let tracing: Tracing | undefined;
  let app: GrpcApp;
  let address: string;

  beforeAll(async () => {
    tracing = await startTracing({ serviceName: 'rpc-test', exporter, env: {} });
    const implementation: Partial<pb.WebhooksServiceServer> = {
      getWebhook: unary(logger, 'GetWebhook', async (req: pb.GetWebhookRequest) => {
        logger.info({ id: req.id }, 'handling');
        if (req.id === 'missing') throw new NotFoundError('No webhook with _id missing');
        if (req.id === 'crash') throw new Error('boom');
        return { webhook: sample };
      }),
    };
    app = new GrpcApp({
      logger: createLogger({ service: 'rpc-trace-test', level: 'silent' }),
      services: [
        {
          name: 'pim.webhooks.v1.WebhooksService',
          definition: pb.WebhooksServiceService,
          implementation: implementation as pb.WebhooksServiceServer,
        },
      ],
      protoRoot: PROTO_ROOT,
      protoFiles: [PROTO_FILES.webhooks],
      shutdownGraceMs: 2000,
    });
    address = `127.0.0.1:${await app.listen(0, '127.0.0.1')}`;
  });

  afterAll(async () => {
    await app.shutdown();
    await tracing?.shutdown();
  });

  beforeEach(() => {
    exporter.reset();
    lines.length = 0;
  });

  const client = () => createRpcClient(pb.WebhooksServiceClient, { service: 'webhooks', address, deadlineMs: 2000 });
  const byKind = (kind: SpanKind): ReadableSpan => exporter.getFinishedSpans().find((s) => s.kind === kind)!;

  it('makes the server span a child of the client span, itself a child of the caller, in one trace', async () => {
    const c = client();
    let parent: { traceId: string; spanId: string } | undefined;
    await inSpan('caller', {}, async (span) => {
      parent = span.spanContext();
      await c.getWebhook({ id: sample.id });
    });
    c.close();
    const clientSpan = byKind(SpanKind.CLIENT);
    const serverSpan = byKind(SpanKind.SERVER);
    expect(clientSpan.name).toBe('pim.webhooks.v1.WebhooksService/GetWebhook');
    expect(serverSpan.name).toBe('pim.webhooks.v1.WebhooksService/GetWebhook');
    expect(clientSpan.spanContext().traceId).toBe(parent!.traceId);
    expect(clientSpan.parentSpanContext?.spanId).toBe(parent!.spanId);
    expect(serverSpan.spanContext().traceId).toBe(parent!.traceId);
    expect(serverSpan.parentSpanContext?.spanId).toBe(clientSpan.spanContext().spanId);
    expect(clientSpan.attributes).toMatchObject({
      'rpc.system': 'grpc',
      'rpc.service': 'pim.webhooks.v1.WebhooksService',
      'rpc.method': 'GetWebhook',
      'rpc.grpc.status_code': 0,
      'server.address': '127.0.0.1',
    });
    expect(serverSpan.attributes).toMatchObject({ 'rpc.method': 'GetWebhook', 'rpc.grpc.status_code': 0 });
    // What the handler logs carries the server span's ids.
    const handled = lines.find((l) => l.msg === 'handling')!;
    expect(handled).toMatchObject({ trace_id: parent!.traceId, span_id: serverSpan.spanContext().spanId });
    expect(typeof handled.request_id).toBe('string');
  });

  it("starts a trace at the client when the caller has none; a caller's error is the client's failure, not the server's", async () => {
    const c = client();
    await expect(c.getWebhook({ id: 'missing' })).rejects.toBeInstanceOf(NotFoundError);
    const clientSpan = byKind(SpanKind.CLIENT);
    const serverSpan = byKind(SpanKind.SERVER);
    expect(clientSpan.parentSpanContext).toBeUndefined();
    expect(serverSpan.spanContext().traceId).toBe(clientSpan.spanContext().traceId);
    expect(clientSpan.status.code).toBe(2);
    expect(clientSpan.attributes['rpc.grpc.status_code']).toBe(5);
    expect(serverSpan.attributes['rpc.grpc.status_code']).toBe(5);
    expect(serverSpan.status.code).toBe(0);

    exporter.reset();
    await expect(c.getWebhook({ id: 'crash' })).rejects.toThrow();
    expect(byKind(SpanKind.SERVER).status.code).toBe(2);
    expect(byKind(SpanKind.SERVER).attributes['error.type']).toBe('INTERNAL');
    c.close();
  });
});
