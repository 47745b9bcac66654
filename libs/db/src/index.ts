export {
  createDataSource,
  detectDrift,
  ensureSchema,
  migrate,
  MIGRATIONS_TABLE,
  quoteIdent,
  type AppDataSourceOptions,
} from './data-source';
export {
  isDeadlock,
  transactionRetryingDeadlocks,
  translatePgError,
  uniqueValueTaken,
  type UniqueMessages,
} from './pg-errors';
export { LISTEN_PURPOSE, LISTEN_RETRY_MS, pgClientConfigOf, PgListener, type PgListenerOptions } from './listener';
export { copyColumnsOf, copyInto, copyLine, copyValue, type CopyColumn, type CopyKind } from './copy';
export { Wakeup } from './wakeup';
export { RawJson, stringifyWithRaw } from './raw-json';
export { NotifiedLoop, type LoopLogger, type NotifiedLoopOptions } from './notified-loop';
export { lockStrings } from './advisory';
export { pgPoolOf, watchPools, type PoolLike, type WatchedPool } from './pool.metrics';
export {
  CallAlreadyWritten,
  CallerGone,
  IDEMPOTENT_CALLS_DOWN_SQL,
  IDEMPOTENT_CALLS_RETENTION_HOURS,
  IDEMPOTENT_CALLS_UP_SQL,
  CallCommitGuard,
  IdempotentCallStore,
  idempotentCallsMigration,
} from './idempotent-calls';
