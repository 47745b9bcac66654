export * from './context';
export * from './logger';
