import type { ExportFilters } from '@pim/resources';
import type { ProductQuery } from '../links/catalog.link';
import type { ApprovalQuery } from '../links/workflow.link';

/** An export's filters as the catalog runs them (in SQL), and what is checked per batch after. */
export interface ExportSelection {
  /** The catalog's list query: every filter it can run. */
  query: ProductQuery;
  /** `fulfilled: false`: products with no fulfilled quantity above zero (a missing quantity included). */
  unfulfilledOnly: boolean;
  /** Products with a product approval that fits this (asked of the workflow app per batch). */
  approval?: ApprovalQuery;
}

const filter = (field: string, op: string, values: string[]) => ({ field, op, values });

/**
 * Translates an export's filters: each one the catalog's product list knows becomes its filter
 * (`brands` → `brand_id_in`, `categories` → `categories_in`, `catalog` → `catalog_id`,
 * `custom_period` → `created_at_gte` and `_lte`, `attr_control` → `attributes.<key>_exists`…);
 * `fulfilled: false` (a missing quantity counts as none) and the workflow approval filters are
 * checked per batch.
 */
export function selectionOf(f: ExportFilters): ExportSelection {
  const filters = [];
  if (f.enabled !== undefined) filters.push(filter('enabled', 'eq', [String(f.enabled)]));
  if (f._id_in) filters.push(filter('_id', 'in', f._id_in));
  if (f.brands) filters.push(filter('brand_id', 'in', f.brands));
  if (f.families) filters.push(filter('family_id', 'in', f.families));
  if (f.categories) filters.push(filter('categories', 'in', f.categories));
  if (f.category_trees) filters.push(filter('category_trees', 'in', f.category_trees));
  if (f.catalog) filters.push(filter('catalog_id', 'eq', [f.catalog]));
  if (f.custom_period) {
    filters.push(filter('created_at', 'gte', [f.custom_period[0]]));
    filters.push(filter('created_at', 'lte', [f.custom_period[1]]));
  }
  if (f.fulfilled === true) filters.push(filter('fulfilled', 'gt', ['0']));
  for (const a of f.attr_control ?? []) filters.push(filter(`attributes.${a.attributes.key}`, 'exists', ['true']));
  const approval =
    f.workflow_approval || f.workflow_approval_status
      ? {
          ...(f.workflow_approval ? { workflow_approval_id: f.workflow_approval } : {}),
          ...(f.workflow_approval_status ? { status: f.workflow_approval_status } : {}),
        }
      : undefined;
  return {
    query: { filters, search: f._search ?? '' },
    unfulfilledOnly: f.fulfilled === false,
    ...(approval ? { approval } : {}),
  };
}
