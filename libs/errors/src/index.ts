export * from './errors';
export * from './grpc';
