export * from './errors';
export * from './grpc';
export * from './zod';
