export * from './collections';
export * from './common';
export * from './webhooks';
export * from './deliveries';
export * from './taxonomy';
export * from './attributes';
export * from './products';
export * from './relations';
