export { currentContext, runWithContext, type Actor, type RequestContext } from './context';
export { createLogger, REDACT_PATHS, type Logger, type LoggerSettings } from './logger';
