import { failSpan, SpanKind, startSpan, tracingEnabled, type Attributes, type Context, type Span } from './tracing';

// The client span of an outbound HTTP request (a channel's publication), with the OpenTelemetry
// HTTP client attributes. A no-op (one boolean test) while tracing is off.

const REDACTED = 'REDACTED';

/**
 * A URL as a span may show it (`url.full`): a user name and password become `REDACTED`, and so
 * does every query value (a target's URL may carry its token there); the fragment is dropped.
 * Undefined when it does not parse.
 */
export function redactUrl(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.username) u.username = REDACTED;
  if (u.password) u.password = REDACTED;
  if (u.search) {
    const keys = [...u.searchParams.keys()];
    u.search = keys.map((k) => `${encodeURIComponent(k)}=${REDACTED}`).join('&');
  }
  u.hash = '';
  return u.href;
}

/** The request a client span stands for, and where the span goes. */
export interface HttpClientSpanOptions {
  method: string;
  url: string;
  /** The parent: by default the active context. */
  parent?: Context;
  /** The caller's own attributes (`pim.*`). */
  attributes?: Attributes;
}

/**
 * Starts the client span of an outbound HTTP request: `http.request.method`, `url.full` (redacted),
 * `server.address`, `server.port`, and the caller's attributes. The caller runs the request inside
 * it (withSpan) and ends it with endHttpClientSpan.
 */
export function startHttpClientSpan(name: string, opts: HttpClientSpanOptions): Span {
  if (!tracingEnabled()) return startSpan(name);
  const attributes: Attributes = { 'http.request.method': opts.method.toUpperCase() };
  const full = redactUrl(opts.url);
  if (full !== undefined) {
    const u = new URL(full);
    attributes['url.full'] = full;
    attributes['server.address'] = u.hostname.replace(/^\[(.*)\]$/, '$1');
    attributes['server.port'] = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
  }
  return startSpan(name, {
    kind: SpanKind.CLIENT,
    parent: opts.parent,
    attributes: { ...attributes, ...opts.attributes },
  });
}

/** How an outbound request ended, as its span tells it. */
export interface HttpClientOutcome {
  /** The answer's status, when one came. */
  statusCode?: number;
  /**
   * Why the request failed (`error.type`): a low-cardinality name (`timeout`, a network error's
   * code). Default: the status code of a 4xx or 5xx answer; none otherwise.
   */
  errorType?: string;
  /** The span status's message (default: the error type). */
  message?: string;
}

/** Ends an HTTP client span: `http.response.status_code`, and an error status with `error.type` when it failed. */
export function endHttpClientSpan(span: Span, outcome: HttpClientOutcome): void {
  if (!span.isRecording()) return span.end();
  const { statusCode } = outcome;
  if (statusCode !== undefined) span.setAttribute('http.response.status_code', statusCode);
  const errorType =
    outcome.errorType ?? (statusCode !== undefined && statusCode >= 400 ? String(statusCode) : undefined);
  if (errorType !== undefined) failSpan(span, { message: outcome.message ?? errorType }, errorType);
  span.end();
}
