import {
  DiagLogLevel,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  diag,
  isSpanContextValid,
  propagation,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TextMapGetter,
  type TextMapSetter,
  type Tracer,
} from '@opentelemetry/api';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import type { Logger } from 'pino';

export { SpanKind, SpanStatusCode, type Attributes, type Context, type Span } from '@opentelemetry/api';

/** W3C trace context header names (gRPC metadata keys, NATS headers, the envelope field). */
export const TRACEPARENT = 'traceparent';
export const TRACESTATE = 'tracestate';

/** The name of the platform's tracer (the instrumentation scope of every span). */
const TRACER_NAME = 'pim';

/** A span that records nothing: what every helper hands out while tracing is off. */
const NOOP_SPAN: Span = trace.wrapSpanContext({ traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 });

/**
 * The SDK (provider, processors, samplers, resources, context manager), imported by startTracing
 * once tracing is on: an app with tracing off never loads its ~80 modules (~4 MB of memory).
 */
function importSdk() {
  return Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/semantic-conventions'),
  ]);
}
type Sdk = Awaited<ReturnType<typeof importSdk>>[0];

// Set once tracing is started in this process; every helper checks it first, so tracing off costs
// one boolean test per call site.
let active: {
  provider: InstanceType<Sdk['TracerProvider']>;
  tracer: Tracer;
  contextManager: { disable(): unknown };
} | null = null;

/** Whether this process records spans (startTracing ran and the environment asked for it). */
export function tracingEnabled(): boolean {
  return active !== null;
}

/**
 * Every variable tracing reads in an app (readTracingEnv, the resource, the batch processor, the
 * OTLP exporter): for tools that check which settings an app takes (deployment manifests).
 */
export const TRACING_VARIABLES = [
  'OTEL_SDK_DISABLED',
  'OTEL_TRACES_EXPORTER',
  'OTEL_SERVICE_NAME',
  'OTEL_RESOURCE_ATTRIBUTES',
  'OTEL_TRACES_SAMPLER',
  'OTEL_TRACES_SAMPLER_ARG',
  'OTEL_BSP_SCHEDULE_DELAY',
  'OTEL_BSP_MAX_QUEUE_SIZE',
  'OTEL_BSP_MAX_EXPORT_BATCH_SIZE',
  'OTEL_BSP_EXPORT_TIMEOUT',
  ...['ENDPOINT', 'PROTOCOL', 'HEADERS', 'TIMEOUT', 'COMPRESSION'].flatMap((v) => [
    `OTEL_EXPORTER_OTLP_${v}`,
    `OTEL_EXPORTER_OTLP_TRACES_${v}`,
  ]),
] as const;

const PROTOCOLS = ['http/protobuf', 'http/json'] as const;
type Protocol = (typeof PROTOCOLS)[number];

/** The samplers of `OTEL_TRACES_SAMPLER` the platform supports. */
const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
type SamplerName = (typeof SAMPLERS)[number];

/** The tracing settings read from the standard OTEL_* variables. */
export interface TracingEnv {
  /** Whether spans are recorded and exported. */
  enabled: boolean;
  protocol: Protocol;
  /** `OTEL_TRACES_SAMPLER` and the ratio of `OTEL_TRACES_SAMPLER_ARG` (1 unless set). */
  sampler: { name: SamplerName; ratio: number };
}

function bad(name: string, value: string, expected: string): Error {
  return new Error(`Invalid configuration: ${name}: "${value}" is not supported (${expected})`);
}

/**
 * Reads the standard variables. Tracing is on when `OTEL_TRACES_EXPORTER` is `otlp`, or when it is
 * unset and `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` is set; it is off
 * when `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`, and by default. A value the
 * platform does not support (another exporter, the grpc protocol, an unknown sampler) is an error
 * naming the variable, as for every other setting.
 */
export function readTracingEnv(env: NodeJS.ProcessEnv = process.env): TracingEnv {
  const v = (name: string): string | undefined => {
    const raw = env[name]?.trim();
    return raw ? raw : undefined;
  };
  const exporters = (v('OTEL_TRACES_EXPORTER') ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  for (const e of exporters) if (e !== 'otlp' && e !== 'none') throw bad('OTEL_TRACES_EXPORTER', e, 'otlp or none');
  const endpoint = v('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? v('OTEL_EXPORTER_OTLP_ENDPOINT');
  const disabled = v('OTEL_SDK_DISABLED')?.toLowerCase() === 'true';
  const enabled = !disabled && (exporters.length > 0 ? exporters.includes('otlp') : endpoint !== undefined);

  const protocol = (v('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? v('OTEL_EXPORTER_OTLP_PROTOCOL') ?? 'http/protobuf') as
    Protocol | string;
  if (!PROTOCOLS.includes(protocol as Protocol))
    throw bad(
      v('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL',
      protocol,
      'http/protobuf or http/json',
    );

  const ratio = (): number => {
    const raw = v('OTEL_TRACES_SAMPLER_ARG');
    if (raw === undefined) return 1;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0 || n > 1) throw bad('OTEL_TRACES_SAMPLER_ARG', raw, 'a number from 0 to 1');
    return n;
  };
  const samplerName = (v('OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on').toLowerCase() as SamplerName;
  if (!SAMPLERS.includes(samplerName)) throw bad('OTEL_TRACES_SAMPLER', samplerName, SAMPLERS.join(', '));
  const usesRatio = samplerName.endsWith('traceidratio');
  return { enabled, protocol: protocol as Protocol, sampler: { name: samplerName, ratio: usesRatio ? ratio() : 1 } };
}

/** The SDK's sampler for a setting of readTracingEnv. */
function makeSampler(sdk: Sdk, { name, ratio }: TracingEnv['sampler']) {
  const root = name.endsWith('always_on')
    ? new sdk.AlwaysOnSampler()
    : name.endsWith('always_off')
      ? new sdk.AlwaysOffSampler()
      : new sdk.TraceIdRatioBasedSampler(ratio);
  return name.startsWith('parentbased_') ? new sdk.ParentBasedSampler({ root }) : root;
}

/** How a process starts tracing. */
export interface TracingSettings {
  /** `service.name` unless `OTEL_SERVICE_NAME` sets it: the app's name. */
  serviceName: string;
  version?: string;
  /** Exporter failures are logged here (warn). */
  logger?: Logger;
  /** Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /**
   * Tests: spans go to this exporter as each ends (a SimpleSpanProcessor), whatever the
   * environment says — e.g. the SDK's InMemorySpanExporter.
   */
  exporter?: SpanExporter;
}

/** A started tracer provider: flush it before exiting. */
export interface Tracing {
  forceFlush(): Promise<void>;
  /** Exports what is left and unregisters everything (tracing is off again in this process). */
  shutdown(): Promise<void>;
}

function intFromEnv(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw bad(name, raw, 'a whole number');
  return n;
}

/**
 * Starts tracing in this process when the environment asks for it (readTracingEnv) or a test
 * gives an exporter; returns undefined, and registers nothing, otherwise. Registers the global
 * tracer provider, an AsyncLocalStorage context manager and the W3C trace-context propagator. The
 * OTLP exporter (http/protobuf or http/json) reads its endpoint, headers, timeout and compression
 * from the standard variables itself; the batch processor takes `OTEL_BSP_*`.
 */
export async function startTracing(settings: TracingSettings): Promise<Tracing | undefined> {
  const env = settings.env ?? process.env;
  const config = readTracingEnv(env);
  if (!settings.exporter && !config.enabled) return undefined;
  if (active) {
    // A test that runs apps in its own process starts tracing itself first; the apps then use it.
    if (settings.exporter) throw new Error('tracing is already started in this process');
    return undefined;
  }

  const [sdk, { AsyncLocalStorageContextManager }, { W3CTraceContextPropagator }, resources, semconv] =
    await importSdk();
  const { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } = semconv;
  const { detectResources, resourceAttributesEnvDetector, resourceFromAttributes } = resources;
  let processor;
  if (settings.exporter) {
    processor = new sdk.SimpleSpanProcessor({ exporter: settings.exporter });
  } else {
    // Loaded only when tracing is on: the exporters bring the OTLP encoders with them.
    const { OTLPTraceExporter } =
      config.protocol === 'http/json'
        ? await import('@opentelemetry/exporter-trace-otlp-http')
        : await import('@opentelemetry/exporter-trace-otlp-proto');
    processor = new sdk.BatchSpanProcessor({
      exporter: new OTLPTraceExporter(),
      scheduledDelayMillis: intFromEnv(env, 'OTEL_BSP_SCHEDULE_DELAY'),
      maxQueueSize: intFromEnv(env, 'OTEL_BSP_MAX_QUEUE_SIZE'),
      maxExportBatchSize: intFromEnv(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
      exportTimeoutMillis: intFromEnv(env, 'OTEL_BSP_EXPORT_TIMEOUT'),
    });
  }
  if (settings.logger) {
    const log = settings.logger.child({ component: 'opentelemetry' });
    diag.setLogger(
      {
        error: (msg, ...args) => log.warn(args.length > 0 ? { args } : {}, msg),
        warn: (msg, ...args) => log.warn(args.length > 0 ? { args } : {}, msg),
        info: () => undefined,
        debug: () => undefined,
        verbose: () => undefined,
      },
      { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
    );
  }
  // service.name: OTEL_SERVICE_NAME, else OTEL_RESOURCE_ATTRIBUTES' service.name, else the app's name.
  const named = env.OTEL_SERVICE_NAME?.trim();
  const resource = resourceFromAttributes({
    [ATTR_SERVICE_NAME]: settings.serviceName,
    ...(settings.version ? { [ATTR_SERVICE_VERSION]: settings.version } : {}),
  })
    .merge(detectResources({ detectors: [resourceAttributesEnvDetector] }))
    .merge(named ? resourceFromAttributes({ [ATTR_SERVICE_NAME]: named }) : null);
  const provider = new sdk.TracerProvider({
    resource,
    sampler: makeSampler(sdk, config.sampler),
    spanProcessors: [processor],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  active = { provider, tracer: provider.getTracer(TRACER_NAME), contextManager };
  return {
    forceFlush: () => provider.forceFlush(),
    async shutdown() {
      if (active?.provider !== provider) return;
      active = null;
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
      diag.disable();
    },
  };
}

/** The current span's ids for log lines, when a span is active (and tracing is on). */
export function activeTraceIds(): { trace_id: string; span_id: string } | undefined {
  if (!active) return undefined;
  const sc = trace.getActiveSpan()?.spanContext();
  return sc && isSpanContextValid(sc) ? { trace_id: sc.traceId, span_id: sc.spanId } : undefined;
}

/** Options of a span started by the platform's helpers. */
export interface StartSpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The parent: by default the active context. */
  parent?: Context;
}

/** Starts a span (a no-op one while tracing is off); the caller ends it. */
export function startSpan(name: string, opts: StartSpanOptions = {}): Span {
  if (!active) return NOOP_SPAN;
  return active.tracer.startSpan(
    name,
    { kind: opts.kind ?? SpanKind.INTERNAL, attributes: opts.attributes },
    opts.parent ?? context.active(),
  );
}

/** Runs fn with `span` as the active span (as is, while tracing is off). */
export function withSpan<T>(span: Span, fn: () => T): T {
  if (!active || span === NOOP_SPAN) return fn();
  return context.with(trace.setSpan(context.active(), span), fn);
}

/** Runs fn with a context taken from elsewhere (an event, a delivery) active. */
export function withContext<T>(ctx: Context, fn: () => T): T {
  if (!active) return fn();
  return context.with(ctx, fn);
}

/** Marks a span failed with an error (its type and message; the stack stays in the logs). */
export function failSpan(span: Span, err: unknown, errorType?: string): void {
  if (span === NOOP_SPAN) return;
  const e = err as { name?: unknown; message?: unknown } | null;
  const type = errorType ?? (typeof e?.name === 'string' ? e.name : 'Error');
  span.setAttribute('error.type', type);
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: typeof e?.message === 'string' ? e.message.slice(0, 500) : String(err).slice(0, 500),
  });
}

/**
 * Runs fn inside a new span (child of the active context, or of `parent`), ending it when fn
 * settles; a thrown error marks it failed and is thrown on. While tracing is off fn just runs.
 */
export async function inSpan<T>(name: string, opts: StartSpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
  if (!active) return fn(NOOP_SPAN);
  const span = startSpan(name, opts);
  try {
    return await context.with(trace.setSpan(opts.parent ?? context.active(), span), () => fn(span));
  } catch (err) {
    failSpan(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/** Writes the W3C trace context of `span` (default: the active span) through `setter`; nothing while tracing is off. */
export function injectTraceContext<C>(carrier: C, setter: TextMapSetter<C>, span?: Span): void {
  if (!active) return;
  propagation.inject(span ? trace.setSpan(ROOT_CONTEXT, span) : context.active(), carrier, setter);
}

/** Reads a W3C trace context from a carrier; the root context when there is none (or tracing is off). */
export function extractTraceContext<C>(carrier: C, getter: TextMapGetter<C>): Context {
  if (!active) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, carrier, getter);
}

/** A W3C trace context as stored with an event: `traceparent`, and `tracestate` when there is one. */
export interface StoredTraceContext {
  traceparent: string;
  tracestate?: string;
}

/** The W3C trace context of `span` (default: the active span), or undefined (no span, or tracing off). */
export function traceContextOf(span?: Span): StoredTraceContext | undefined {
  if (!active) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(span ? trace.setSpan(ROOT_CONTEXT, span) : context.active(), carrier);
  const traceparent = carrier[TRACEPARENT];
  if (!traceparent) return undefined;
  return carrier[TRACESTATE] ? { traceparent, tracestate: carrier[TRACESTATE] } : { traceparent };
}

/** The W3C `traceparent` of `span` (default: the active span), or undefined (no span, or tracing off). */
export function traceparentOf(span?: Span): string | undefined {
  return traceContextOf(span)?.traceparent;
}

/** The context a stored `traceparent` (and `tracestate`) continues; the root context when absent or malformed. */
export function contextFromTraceparent(traceparent: unknown, tracestate?: unknown): Context {
  if (!active || typeof traceparent !== 'string') return ROOT_CONTEXT;
  const carrier: Record<string, string> = { [TRACEPARENT]: traceparent };
  if (typeof tracestate === 'string') carrier[TRACESTATE] = tracestate;
  return propagation.extract(ROOT_CONTEXT, carrier);
}
