export * from './collections';
export * from './common';
export * from './webhooks';
