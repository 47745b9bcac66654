export {
  DEFAULT_SORT,
  FIELD_TYPES,
  ID_FIELD,
  RESERVED_PARAMS,
  columnOf,
  declareResource,
  expandables,
  filterableFields,
  isFilterable,
  isSortable,
  searchableFields,
  sortableFields,
  type FieldDecl,
  type FieldType,
  type ResourceDecl,
} from './resource.declaration';
export {
  DEFAULT_LIMIT,
  FILTER_OPS,
  MAX_LIMIT,
  MAX_SKIP,
  filterKey,
  type Filter,
  type FilterOp,
  type ListLimits,
  type ListQuery,
  type SortField,
} from './list-query.types';
export { DEEP_PAGING, maxPage, opsFor } from './list-query.rules';
export { parseListQuery } from './list-query.parser';
export { joinListValues, splitListValues } from './list-values';
export { readNestedFilter, writtenFilter } from './nested-filter';
export { validateListQuery } from './list-query.validator';
export { applyListQuery, sortWithTieBreak, type ApplyListQueryOptions } from './list-query.sql';
export { LIST_ENVELOPE_KEYS, buildEnvelope, pageUrl, type EnvelopeArgs, type ListEnvelope } from './list.envelope';
