export * from './collections';
export * from './common';
export * from './webhooks';
export * from './taxonomy';
export * from './attributes';
export * from './deliveries';
