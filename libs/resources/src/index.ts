export * from './collections';
export * from './common';
export * from './webhooks';
export * from './deliveries';
export * from './taxonomy';
export * from './attributes';
export * from './products';
export * from './relations';
export { Field, field, type FieldSpec } from './declare/field';
export {
  defineResource,
  type Fields,
  type InputShape,
  type Resource,
  type ResourceSpec,
  type RowOf,
  type ViewShape,
} from './declare/resource';
