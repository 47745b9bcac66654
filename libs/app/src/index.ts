export { DEAD_LETTERS_LIST_MAX, DEAD_LETTERS_SERVICE, deadLetterMessage, deadLettersGrpc } from './dead-letters.grpc';
export { migrateApp, type MigrateSpec } from './migrate-app';
export { serveMetrics } from './metrics';
export { withRetries } from './retry';
export {
  runApp,
  startApp,
  type AppContext,
  type AppSpec,
  type AppWiring,
  type BackgroundLoop,
  type OwnerConfig,
  type RunningApp,
} from './run-app';
export { Shutdown, type ShutdownStep } from './shutdown';
export { packageVersion } from './version';
