export { currentCallMark, runWithCallMark, type CallMark } from './call-mark';
export {
  authorName,
  currentAccess,
  currentContext,
  runWithContext,
  type Actor,
  type ProductAccess,
  type RequestContext,
} from './context';
export {
  endHttpClientSpan,
  redactUrl,
  startHttpClientSpan,
  type HttpClientOutcome,
  type HttpClientSpanOptions,
} from './http-client.span';
export { createLogger, REDACT_PATHS, type Logger, type LoggerSettings } from './logger';
export { currentRunAs, runJobAs, type RunAs } from './run-as';
export {
  activeTraceIds,
  contextFromTraceparent,
  extractTraceContext,
  failSpan,
  injectTraceContext,
  inSpan,
  readTracingEnv,
  SpanKind,
  SpanStatusCode,
  startSpan,
  startTracing,
  traceContextOf,
  traceparentOf,
  tracingEnabled,
  TRACEPARENT,
  TRACESTATE,
  TRACING_VARIABLES,
  withContext,
  withSpan,
  type Attributes,
  type Context,
  type Span,
  type StartSpanOptions,
  type StoredTraceContext,
  type Tracing,
  type TracingEnv,
  type TracingSettings,
} from './tracing';
