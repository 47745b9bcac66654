import type { RecordStore } from '@pim/records';

/**
 * How the catalog's records are stored: its events come from `catalog`, and `_search` uses the
 * IMMUTABLE unaccent wrapper its search indexes are built on (created by the first migration).
 */
export const CATALOG_STORE: RecordStore = { source: 'catalog', unaccent: 'catalog.immutable_unaccent' };
