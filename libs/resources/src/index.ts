export * from './collections';
export * from './common';
export * from './webhooks';
export * from './taxonomy';
