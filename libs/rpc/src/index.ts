export * from './metadata';
export * from './server';
export * from './client';
export * from './health';
export * from './list-query';
