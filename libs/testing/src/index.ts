export * from './database';
export * from './nats';
