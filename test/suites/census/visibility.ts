// Which operations reach records of products, and how the census checks each for a restricted
// user (docs/decisions/access.md): derived from the document, so a new operation joins by itself
// or fails naming what it lacks.
import {
  nameOf,
  recordSchema,
  resolved,
  successSchema,
  type OpenApiDocument,
  type Operation,
  type Schema,
} from './operations';

/**
 * How the census checks one operation on records of products, with a key bound to a user who sees
 * one product (`visible`) and not another (`hidden`):
 * - `read`: `GET /<c>/{id}` of the hidden one's record is a 404 error object, of the visible one's a 200;
 * - `list`: `GET /<c>` shows the visible one's records and none of the hidden one's, its total
 *   counting only those, and a filter on the hidden product finds nothing;
 * - `write`: `PUT`/`PATCH`/`DELETE /<c>/{id}` and `POST /<c>/{id}/<action>` on the hidden one's
 *   record are a 404 error object, and the record is left as it was;
 * - `create`: `POST /<c>` naming the hidden product is answered as for a product that does not exist;
 * - `own`: an operation of its own shape, checked by its own probe (`SPECIAL_PROBES`).
 */
export type ProbeKind = 'read' | 'list' | 'write' | 'create' | 'own';

/** The products' own path, whose records are the products themselves. */
export const PRODUCTS_PATH = 'products';

/**
 * Operations of their own shape on records of products, each with what its probe checks (the
 * e2e runs one per entry); a new one fails the census until it is added here and probed.
 */
export const SPECIAL_PROBES: Record<string, string> = {
  bulkUpsertProducts: 'an item naming the hidden product by code fails alone with a 409; the visible one is written',
  publishInBulk: 'a bulk publication selecting the hidden product publishes nothing: it runs as its creator',
  getChannelReadiness: 'readiness of the hidden product is a 404 error object, of the visible one a 200',
};

const AS_PLACED = 'orders name the products of their items as placed; orders are not records of products';
const CONFIGURATION = 'configuration naming the products a workflow approval governs (ids only)';
const RUNS_AS_CREATOR =
  'a job runs as its creator and holds what they saw; a restricted user reads only the jobs they set to work, whatever products they name (docs/decisions/access.md)';

/**
 * Operations whose requests or answers name products but that are not records of one, each with
 * why users groups do not restrict them; a new operation naming products fails the census until
 * it is probed or listed here.
 */
export const NAMES_PRODUCTS_UNRESTRICTED: Record<string, string> = {
  ...Object.fromEntries(
    [
      'moveOrderStatus',
      'addOrderComment',
      'addOrderPayment',
      'addOrderInvoice',
      'createOrder',
      'listOrders',
      'getOrder',
      'replaceOrder',
      'patchOrder',
    ].map((id) => [id, AS_PLACED]),
  ),
  ...Object.fromEntries(
    [
      'createWorkflowApproval',
      'listWorkflowApprovals',
      'getWorkflowApproval',
      'replaceWorkflowApproval',
      'patchWorkflowApproval',
    ].map((id) => [id, CONFIGURATION]),
  ),
  ...Object.fromEntries(
    ['createExport', 'listExports', 'getExport', 'retryExport', 'downloadExport', 'downloadImportErrors'].map((id) => [
      id,
      RUNS_AS_CREATOR,
    ]),
  ),
  ...Object.fromEntries(['listPublicationBatches', 'getPublicationBatch'].map((id) => [id, RUNS_AS_CREATOR])),
  followImport: 'a stream of an import’s progress: counts, no product',
};

/** Property names that name products: `product_id`, `products`, `kit_products`… */
const NAMES_PRODUCTS = /^(product_id|products|[a-z_]+_products)$/;

/** Whether an operation's success answers something other than JSON (a file, a stream), which the schemas cannot tell about. */
export function answersFile(o: Operation): boolean {
  const status = o.statuses.find((s) => s >= 200 && s < 300);
  const response = status === undefined ? undefined : o.op.responses[String(status)];
  const types = Object.keys((response as { content?: Record<string, unknown> } | undefined)?.content ?? {});
  return types.some((t) => t !== 'application/json');
}

/** Whether a schema (and what it holds, to a few levels) has a property naming products. */
export function namesProducts(doc: OpenApiDocument, schema: Schema | undefined, depth = 0): boolean {
  const s = resolved(doc, schema);
  if (!s || depth > 6) return false;
  if (Object.keys(s.properties ?? {}).some((k) => NAMES_PRODUCTS.test(k))) return true;
  const inner = [
    ...Object.values(s.properties ?? {}),
    ...(s.items ? [s.items] : []),
    ...(s.anyOf ?? []),
    ...(s.oneOf ?? []),
    ...(s.allOf ?? []),
  ];
  return inner.some((x) => namesProducts(doc, x, depth + 1));
}

/** The first path segment after `/api/v1/`: `product-approvals`. */
export const collectionPathOf = (o: Pick<Operation, 'path'>): string => o.path.split('/')[3];

/** The collections whose records belong to a product: the products, and every record that requires a `product_id`. */
export function productOwnedPaths(doc: OpenApiDocument, ops: Operation[]): string[] {
  const owned = new Set([PRODUCTS_PATH]);
  for (const o of ops) {
    const record = recordSchema(doc, o);
    if (o.method === 'get' && record?.required?.includes('product_id')) owned.add(collectionPathOf(o));
  }
  return [...owned].sort();
}

/** The probe of an operation on records of products, by its shape. */
export function probeKindOf(o: Operation): ProbeKind {
  if (SPECIAL_PROBES[o.operationId]) return 'own';
  const rest = o.path.split('/').slice(4);
  if (rest.length === 0) return o.method === 'get' ? 'list' : o.method === 'post' ? 'create' : 'own';
  if (rest.length === 1 && rest[0] === '{id}') return o.method === 'get' ? 'read' : 'write';
  if (rest.length === 2 && rest[0] === '{id}' && o.method === 'post') return 'write';
  return 'own';
}

/** How the census classes one operation for a restricted user. */
export type Visibility =
  | { class: 'product-owned'; collection: string; probe: ProbeKind }
  | { class: 'names-products'; reason: string }
  | { class: 'not-about-products' };

/** The census's plan for every operation, and what keeps it from being complete (each problem names an operation). */
export function visibilityPlan(
  doc: OpenApiDocument,
  ops: Operation[],
): { plan: Map<string, Visibility>; problems: string[] } {
  const owned = productOwnedPaths(doc, ops);
  const plan = new Map<string, Visibility>();
  const problems: string[] = [];
  for (const o of ops) {
    const collection = collectionPathOf(o);
    const aboutProduct = owned.includes(collection) || [...o.queryParams, ...o.pathParams].includes('product_id');
    if (aboutProduct) {
      const probe = probeKindOf(o);
      if (probe === 'own' && !SPECIAL_PROBES[o.operationId])
        problems.push(`${nameOf(o)} reaches records of products but has no probe: add one to SPECIAL_PROBES`);
      plan.set(o.operationId, { class: 'product-owned', collection, probe });
      continue;
    }
    const body = o.op.requestBody?.content?.['application/json']?.schema;
    if (namesProducts(doc, body) || namesProducts(doc, successSchema(doc, o)) || answersFile(o)) {
      const reason = NAMES_PRODUCTS_UNRESTRICTED[o.operationId];
      if (reason) plan.set(o.operationId, { class: 'names-products', reason });
      else
        problems.push(
          `${nameOf(o)} names products (or answers a file) but is neither probed nor listed in NAMES_PRODUCTS_UNRESTRICTED with a reason`,
        );
      continue;
    }
    plan.set(o.operationId, { class: 'not-about-products' });
  }
  const known = new Set(ops.map((o) => o.operationId));
  for (const id of [...Object.keys(SPECIAL_PROBES), ...Object.keys(NAMES_PRODUCTS_UNRESTRICTED)])
    if (!known.has(id)) problems.push(`${id} is planned by the census but is not in the document`);
  for (const [id, v] of plan)
    if (v.class !== 'names-products' && NAMES_PRODUCTS_UNRESTRICTED[id])
      problems.push(
        `${id} is listed in NAMES_PRODUCTS_UNRESTRICTED but ${v.class === 'product-owned' ? 'is probed' : 'names no product'}`,
      );
  return { plan, problems };
}
