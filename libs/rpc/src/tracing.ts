import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import {
  currentContext,
  extractTraceContext,
  failSpan,
  injectTraceContext,
  SpanKind,
  startSpan,
  tracingEnabled,
  type Span,
} from '@pim/logging';
import { grpcCodeName } from './metrics';
import { targetHostPort } from './channel';
import { contextToMetadata } from './metadata';

// Spans of gRPC calls (client and server), the W3C trace context carried in the call's metadata
// as `traceparent` / `tracestate` beside the request id and the caller. Every helper is a no-op
// (one boolean test) while tracing is off.

const metadataSetter = { set: (md: Metadata, key: string, value: string) => md.set(key, value) };
const metadataGetter = {
  get: (md: Metadata, key: string) => {
    const v = md.get(key)[0];
    return typeof v === 'string' ? v : undefined;
  },
  keys: (md: Metadata) => Object.keys(md.getMap()),
};

/** `pim.catalog.v1.ProductsService/GetProduct` split as the rpc.* attributes want it. */
function rpcAttributes(path: string): Record<string, string> {
  const full = path.replace(/^\//, '');
  const slash = full.lastIndexOf('/');
  return {
    'rpc.system': 'grpc',
    'rpc.service': slash > 0 ? full.slice(0, slash) : full,
    'rpc.method': slash > 0 ? full.slice(slash + 1) : full,
  };
}

/** Starts the client span of a call to `path` (`/pkg.Service/Method`) on `address`, a child of the active span. */
export function startClientSpan(path: string, addressOf: () => string): Span {
  if (!tracingEnabled()) return startSpan(path);
  const name = path.replace(/^\//, '');
  const { host, port } = targetHostPort(addressOf());
  return startSpan(name, {
    kind: SpanKind.CLIENT,
    attributes: { ...rpcAttributes(name), 'server.address': host, ...(port ? { 'server.port': port } : {}) },
  });
}

/**
 * The metadata of an outgoing call to `path`: the request id and caller, the call's idempotency
 * token when the request has one, and the client span's trace context.
 */
export function callMetadata(span: Span, path?: string): Metadata {
  const md = contextToMetadata(currentContext(), new Metadata(), path);
  injectTraceContext(md, metadataSetter, span);
  return md;
}

/**
 * The deadline of an outgoing call: `ms` from now, or sooner when the request it is made for
 * ends sooner (its context's deadline: the gateway's request time-out, or the deadline of the call
 * being served) — a call that outlives its request's answer could only write what nobody waits for.
 */
export function callDeadline(ms: number): Date {
  const own = Date.now() + ms;
  const request = currentContext()?.deadline?.getTime();
  return new Date(request !== undefined && request < own ? request : own);
}

/** Ends a client span with the call's status (any status but OK is an error for the caller). */
export function endClientSpan(span: Span, err: Pick<ServiceError, 'code' | 'details'> | null): void {
  if (!span.isRecording()) return span.end();
  const code = err ? err.code : status.OK;
  span.setAttribute('rpc.grpc.status_code', code);
  if (err) failSpan(span, { name: grpcCodeName(code), message: err.details }, grpcCodeName(code));
  span.end();
}

/** Statuses a server reports as its own failure (the OpenTelemetry gRPC conventions); the rest are the caller's. */
const SERVER_ERRORS = new Set<number>([
  status.UNKNOWN,
  status.DEADLINE_EXCEEDED,
  status.UNIMPLEMENTED,
  status.INTERNAL,
  status.UNAVAILABLE,
  status.DATA_LOSS,
]);

/** Starts the server span of a call, continuing the trace context its caller sent in the metadata. */
export function startServerSpan(call: { metadata: Metadata; getPath(): string }): Span {
  if (!tracingEnabled()) return startSpan('');
  const path = call.getPath();
  return startSpan(path.replace(/^\//, ''), {
    kind: SpanKind.SERVER,
    attributes: rpcAttributes(path),
    parent: extractTraceContext(call.metadata, metadataGetter),
  });
}

/** Ends a server span with the status sent (`message` for a failure). */
export function endServerSpan(span: Span, code: number, message?: string): void {
  if (!span.isRecording()) return span.end();
  span.setAttribute('rpc.grpc.status_code', code);
  if (SERVER_ERRORS.has(code)) failSpan(span, { name: grpcCodeName(code), message }, grpcCodeName(code));
  span.end();
}
