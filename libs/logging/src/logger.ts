import pino, { type Logger, type LoggerOptions } from 'pino';
import { currentContext } from './context';
import { activeTraceIds } from './tracing';

export type { Logger } from 'pino';

/** Paths whose values never reach a log line. */
export const REDACT_PATHS = [
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'secret',
  '*.secret',
  'password',
  '*.password',
  'token',
  '*.token',
  'api_key',
  '*.api_key',
  'signing_secret',
  '*.signing_secret',
  'DATABASE_URL',
  '*.DATABASE_URL',
];

/** What a service says about itself on every line. */
export interface LoggerSettings {
  service: string;
  version?: string;
  level?: string;
  /** Where lines go; standard output unless a test captures them. */
  destination?: pino.DestinationStream;
}

/**
 * A JSON logger that redacts secrets and stamps the current request id on every line, and the
 * active span's `trace_id` and `span_id` while tracing is on.
 */
export function createLogger(settings: LoggerSettings): Logger {
  const options: LoggerOptions = {
    level: settings.level ?? 'info',
    base: { service: settings.service, version: settings.version ?? '0.0.0' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    formatters: { level: (label) => ({ level: label }) },
    mixin() {
      const ctx = currentContext();
      const ids = activeTraceIds();
      if (!ids) return ctx ? { request_id: ctx.requestId } : {};
      return ctx ? { request_id: ctx.requestId, ...ids } : ids;
    },
  };
  return settings.destination ? pino(options, settings.destination) : pino(options);
}
