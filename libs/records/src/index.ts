export { mergePatch } from './merge-patch';
export { checkProductFilters, type ProductsQueryChecker } from './product-filters';
export { RecordEntity, SearchableRecordEntity } from './record.entity';
export {
  idsIn,
  idsOut,
  mirrorCodec,
  recordHandlers,
  viewToMessage,
  type MessageCodec,
  type RecordHandlers,
} from './record.grpc';
export { DeclaredColumns, columnOptions, declaredEntity } from './record.columns';
export { productOutOfSight, productOwnedAudience, runAsOwnedAudience, type ProductOwnedSight } from './record.audience';
export { declaredRecord, type RecordStorage } from './record.declared';
export { exclusiveFlag } from './record.exclusive';
export {
  liveIds,
  refuseInUse,
  requireLive,
  type Reference,
  type ReferenceTarget,
  type Usage,
} from './record.references';
export {
  SEARCH_FIELD,
  searchTextOf,
  storageDecl,
  type Audience,
  type Emit,
  type LockRequest,
  type NestedFilter,
  type RecordHooks,
  type RecordResource,
  type RecordView,
  type Scope,
} from './record.resource';
export {
  BATCH_GET_MAX,
  RecordService,
  RetryWrite,
  SEARCH_FOLDED,
  type Mutation,
  type RecordStore,
} from './record.service';
