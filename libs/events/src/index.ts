export * from './event.envelope';
export * from './outbox.entity';
export * from './outbox.sql';
export * from './outbox.record';
export * from './stream.setup';
export * from './outbox.relay';
