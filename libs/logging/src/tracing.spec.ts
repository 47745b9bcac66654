import { Writable } from 'node:stream';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import {
  contextFromTraceparent,
  createLogger,
  inSpan,
  readTracingEnv,
  runWithContext,
  SpanKind,
  startSpan,
  startTracing,
  traceparentOf,
  tracingEnabled,
  withContext,
  type Tracing,
} from './index';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(chunk.toString()));
      cb();
    },
  });
  return { lines, destination };
}

const flushed = () => new Promise((r) => setImmediate(r));

describe('readTracingEnv: off unless OTEL_* asks for it', () => {
  it.each([
    [{}, false],
    [{ OTEL_TRACES_EXPORTER: 'otlp' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, true],
    [{ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, false],
    [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'true' }, false],
    [{ OTEL_SERVICE_NAME: 'catalog' }, false],
  ])('%j → %s', (env, enabled) => {
    expect(readTracingEnv(env).enabled).toBe(enabled);
  });

  it('names a variable it cannot honour', () => {
    expect(() => readTracingEnv({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow('OTEL_TRACES_EXPORTER');
    expect(() => readTracingEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow('OTEL_EXPORTER_OTLP_PROTOCOL');
    expect(() => readTracingEnv({ OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow('OTEL_TRACES_SAMPLER');
    expect(() => readTracingEnv({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' })).toThrow(
      'OTEL_TRACES_SAMPLER_ARG',
    );
    expect(readTracingEnv({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' }).protocol).toBe('http/json');
  });
});

describe('tracing off (the default)', () => {
  it('starts nothing, and every helper is a pass-through', async () => {
    expect(await startTracing({ serviceName: 'test', env: {} })).toBeUndefined();
    expect(tracingEnabled()).toBe(false);
    const span = startSpan('nothing');
    expect(span.isRecording()).toBe(false);
    expect(traceparentOf()).toBeUndefined();
    expect(await inSpan('nothing', {}, async () => 42)).toBe(42);
    const { lines, destination } = capture();
    const log = createLogger({ service: 'test', destination });
    runWithContext({ requestId: 'r-1' }, () => log.info('hello'));
    await flushed();
    expect(Object.keys(lines[0])).not.toContain('trace_id');
  });
});

describe('tracing on', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing | undefined;

  beforeAll(async () => {
    tracing = await startTracing({ serviceName: 'logging-test', version: '1.2.3', exporter, env: {} });
  });
  afterAll(async () => {
    await tracing?.shutdown();
  });
  beforeEach(() => exporter.reset());

  it('stamps trace_id and span_id of the active span beside request_id on every log line', async () => {
    const { lines, destination } = capture();
    const log = createLogger({ service: 'test', destination });
    let ids: { traceId: string; spanId: string } | undefined;
    await runWithContext({ requestId: 'req-7' }, () =>
      inSpan('work', {}, async (span) => {
        ids = span.spanContext();
        await new Promise((r) => setTimeout(r, 1));
        log.info('inside');
      }),
    );
    runWithContext({ requestId: 'req-8' }, () => log.info('outside any span'));
    log.info('outside everything');
    await flushed();
    expect(lines[0]).toMatchObject({ request_id: 'req-7', trace_id: ids!.traceId, span_id: ids!.spanId });
    expect(lines[1]).toMatchObject({ request_id: 'req-8' });
    expect(lines[1].trace_id).toBeUndefined();
    expect(lines[2].trace_id).toBeUndefined();
    expect(lines[2].request_id).toBeUndefined();
  });

  it('names the service and continues a stored traceparent in the same trace', async () => {
    const parent = startSpan('producer', { kind: SpanKind.PRODUCER });
    const stored = traceparentOf(parent);
    parent.end();
    expect(stored).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    await withContext(contextFromTraceparent(stored), () =>
      inSpan('consumer', { kind: SpanKind.CONSUMER }, async () => undefined),
    );
    const [producer, consumer] = exporter.getFinishedSpans();
    expect(consumer.spanContext().traceId).toBe(producer.spanContext().traceId);
    expect(consumer.parentSpanContext?.spanId).toBe(producer.spanContext().spanId);
    expect(producer.resource.attributes['service.name']).toBe('logging-test');
    expect(producer.resource.attributes['service.version']).toBe('1.2.3');
    // Malformed or absent: a new trace, never an error.
    expect(traceparentOf(undefined)).toBeUndefined();
    await withContext(contextFromTraceparent('garbage'), () => inSpan('fresh', {}, async () => undefined));
    const fresh = exporter.getFinishedSpans()[2];
    expect(fresh.parentSpanContext).toBeUndefined();
  });

  it('marks a span failed with the error and rethrows it', async () => {
    await expect(
      inSpan('failing', {}, async () => {
        throw new TypeError('nope');
      }),
    ).rejects.toThrow('nope');
    const [span] = exporter.getFinishedSpans();
    expect(span.status).toEqual({ code: 2, message: 'nope' });
    expect(span.attributes['error.type']).toBe('TypeError');
  });
});
