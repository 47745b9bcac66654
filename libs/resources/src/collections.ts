/** A collection of records: what webhooks subscribe to, events are named after and the API serves. */
export interface CollectionInfo {
  /** snake_case name, as in event types (`products.updated`) and webhook `collection`. */
  name: string;
  /** The app that owns the records. */
  app: 'catalog' | 'workflow' | 'orders' | 'io-jobs' | 'publisher' | 'webhooks';
  /** Event actions beyond created/updated/deleted. */
  extraEvents?: string[];
  /** One record and many in words, for messages and descriptions: `category tree` / `category trees`. */
  label: string;
  labels: string;
  /** The collection of the parent record each record belongs to (an attribute option's attribute). */
  parent?: string;
}

/** Every collection of the platform, in one place (served at GET /api/v1/collections). */
export const COLLECTIONS: readonly CollectionInfo[] = [
  { name: 'products', app: 'catalog', label: 'product', labels: 'products' },
  { name: 'attributes', app: 'catalog', label: 'attribute', labels: 'attributes' },
  { name: 'attribute_groups', app: 'catalog', label: 'attribute group', labels: 'attribute groups' },
  {
    name: 'attribute_options',
    app: 'catalog',
    label: 'attribute option',
    labels: 'attribute options',
    parent: 'attributes',
  },
  { name: 'product_relations', app: 'catalog', label: 'product relation', labels: 'product relations' },
  { name: 'brands', app: 'catalog', label: 'brand', labels: 'brands' },
  { name: 'categories', app: 'catalog', label: 'category', labels: 'categories' },
  { name: 'category_trees', app: 'catalog', label: 'category tree', labels: 'category trees' },
  { name: 'families', app: 'catalog', label: 'family', labels: 'families' },
  { name: 'catalogs', app: 'catalog', label: 'catalog', labels: 'catalogs' },
  { name: 'workflows', app: 'workflow', label: 'workflow', labels: 'workflows' },
  { name: 'workflow_approvals', app: 'workflow', label: 'workflow approval', labels: 'workflow approvals' },
  {
    name: 'product_approvals',
    app: 'workflow',
    extraEvents: ['approved', 'rejected'],
    label: 'product approval',
    labels: 'product approvals',
  },
  { name: 'users_groups', app: 'workflow', label: 'users group', labels: 'users groups' },
  { name: 'orders', app: 'orders', extraEvents: ['status_changed'], label: 'order', labels: 'orders' },
  { name: 'imports', app: 'io-jobs', extraEvents: ['completed', 'failed'], label: 'import', labels: 'imports' },
  { name: 'import_templates', app: 'io-jobs', label: 'import template', labels: 'import templates' },
  { name: 'exports', app: 'io-jobs', extraEvents: ['completed', 'failed'], label: 'export', labels: 'exports' },
  { name: 'channels', app: 'publisher', label: 'channel', labels: 'channels' },
  {
    name: 'publications',
    app: 'publisher',
    extraEvents: ['status_changed'],
    label: 'publication',
    labels: 'publications',
  },
  {
    name: 'publication_batches',
    app: 'publisher',
    extraEvents: ['completed', 'failed'],
    label: 'publication batch',
    labels: 'publication batches',
  },
  { name: 'webhooks', app: 'webhooks', label: 'webhook', labels: 'webhooks' },
];

const byName = new Map(COLLECTIONS.map((c) => [c.name, c]));

/** Whether a name is a known collection. */
export function isCollection(name: string): boolean {
  return byName.has(name);
}

/** Names of every collection, sorted. */
export function collectionNames(): string[] {
  return [...byName.keys()].sort();
}

/** Every event type of a collection (`<collection>.<action>`). */
export function eventTypes(c: CollectionInfo): string[] {
  return ['created', 'updated', 'deleted', ...(c.extraEvents ?? [])].map((a) => `${c.name}.${a}`);
}

/** A collection by name; a programming mistake (an undeclared name) throws. */
export function collectionInfo(name: string): CollectionInfo {
  const c = byName.get(name);
  if (!c) throw new Error(`unknown collection '${name}': declare it in COLLECTIONS (libs/resources)`);
  return c;
}

const pascal = (words: string) => words.replace(/(^|\s)([a-z])/g, (_, _s, c: string) => c.toUpperCase());

/** Names for code: `CategoryTree` / `CategoryTrees` (RPC names, operation ids, schema names). */
export function codeNames(c: CollectionInfo): { one: string; many: string } {
  return { one: pascal(c.label), many: pascal(c.labels) };
}

/**
 * The collection's REST path under the API base: its plural in kebab case (`/category-trees`),
 * under its parent's record for a nested one (`/attributes/:id/options`).
 */
export function collectionPath(c: CollectionInfo): string {
  if (c.parent === undefined) return `/${c.labels.replace(/ /g, '-')}`;
  const parent = collectionInfo(c.parent);
  const own = c.labels.startsWith(`${parent.label} `) ? c.labels.slice(parent.label.length + 1) : c.labels;
  return `${collectionPath(parent)}/:id/${own.replace(/ /g, '-')}`;
}
