export * from './database';
export * from './nats';
export * from './attribute-types';
