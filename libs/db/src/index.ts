export * from './data-source';
export * from './pg-errors';
export * from './listener';
export * from './copy';
export * from './wakeup';
export * from './raw-json';
export * from './notified-loop';
