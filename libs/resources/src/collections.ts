/** A collection of records: what webhooks subscribe to and events are named after. */
export interface CollectionInfo {
  /** snake_case name, as in event types (`products.updated`) and webhook `collection`. */
  name: string;
  /** The app that owns the records. */
  app: 'catalog' | 'workflow' | 'orders' | 'io-jobs' | 'publisher' | 'webhooks';
  /** Event actions beyond created/updated/deleted. */
  extraEvents?: string[];
}

/** Every collection of the platform, in one place (served at GET /api/v1/collections). */
export const COLLECTIONS: readonly CollectionInfo[] = [
  { name: 'products', app: 'catalog' },
  { name: 'attributes', app: 'catalog' },
  { name: 'attribute_groups', app: 'catalog' },
  { name: 'attribute_options', app: 'catalog' },
  { name: 'product_relations', app: 'catalog' },
  { name: 'brands', app: 'catalog' },
  { name: 'categories', app: 'catalog' },
  { name: 'category_trees', app: 'catalog' },
  { name: 'families', app: 'catalog' },
  { name: 'catalogs', app: 'catalog' },
  { name: 'workflows', app: 'workflow' },
  { name: 'workflow_approvals', app: 'workflow' },
  { name: 'product_approvals', app: 'workflow', extraEvents: ['approved', 'rejected'] },
  { name: 'users_groups', app: 'workflow' },
  { name: 'orders', app: 'orders', extraEvents: ['status_changed'] },
  { name: 'imports', app: 'io-jobs', extraEvents: ['completed', 'failed'] },
  { name: 'import_templates', app: 'io-jobs' },
  { name: 'exports', app: 'io-jobs', extraEvents: ['completed', 'failed'] },
  { name: 'channels', app: 'publisher' },
  { name: 'publications', app: 'publisher', extraEvents: ['status_changed'] },
  { name: 'webhooks', app: 'webhooks' },
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
