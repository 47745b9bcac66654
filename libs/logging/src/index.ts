export {
  currentAccess,
  currentContext,
  runWithContext,
  type Actor,
  type ProductAccess,
  type RequestContext,
} from './context';
export { createLogger, REDACT_PATHS, type Logger, type LoggerSettings } from './logger';
export { currentRunAs, runJobAs, type RunAs } from './run-as';
