// Which operations query products by their attribute values, and how the census checks each with
// an attribute hidden from the caller (docs/decisions/access.md, rule 6): derived from the
// document, so a new operation that takes product filters or columns joins by itself or fails
// naming what the census lacks to check it.
import { nameOf, requestMediaType, resolved, type OpenApiDocument, type Operation } from './operations';

/**
 * How one operation names attributes, as the census probes it with a key bound to a user from
 * whom the attribute `key` is hidden (every probe must answer the 403 error object naming it, and
 * store nothing):
 * - `query`: a list taking `attributes.<key>` filters in its query string — one request per
 *   operator;
 * - `body`: a write whose body keeps product filters or columns to run later — one request per
 *   body `bodies` gives.
 */
export type HiddenProbe =
  | { kind: 'query' }
  | {
      kind: 'body';
      /** The bodies to send, each naming the hidden attribute `key` in one way (filters, columns). */
      bodies(key: string, fixture: HiddenFixture): Record<string, unknown>[];
      /** The path to list to see that nothing was stored (the collection the write adds to). */
      stores: string;
    };

/** Records the body probes name besides the attribute. */
export interface HiddenFixture {
  /** A live channel to publish to. */
  channel: string;
  /** A product the user sees. */
  product: string;
  /** The hidden attribute's _id. */
  attribute: string;
}

/** The operators of an attribute filter: `attributes.<key>` + suffix, with a value of a number attribute. */
export const ATTRIBUTE_FILTERS: readonly [suffix: string, value: string][] = [
  ['', '12.5'],
  ['_ne', '12.5'],
  ['_in', '12.5,13'],
  ['_nin', '12.5,13'],
  ['_exists', 'true'],
  ['_exists', 'false'],
  ['_gt', '1'],
  ['_gte', '1'],
  ['_lt', '100'],
  ['_lte', '100'],
];

const productFilters = (key: string) => [
  { [`attributes.${key}`]: '12.5' },
  { [`attributes.${key}_exists`]: 'true' },
  { [`attributes.${key}_gte`]: '1' },
];

/** Operations whose bodies keep product filters or columns, each with its probe. */
export const HIDDEN_BODY_PROBES: Record<string, HiddenProbe & { kind: 'body' }> = {
  createExport: {
    kind: 'body',
    stores: '/api/v1/exports',
    bodies: (key, f) => [
      {
        report_type: 'per_attributes',
        file_type: 'csv',
        filters: { attr_control: [{ attribute_item: { id: f.attribute }, attributes: { key, name: key } }] },
      },
      {
        report_type: 'general',
        file_type: 'csv',
        headers: [
          { label: 'code', value: 'code', isAttribute: false },
          { label: key, value: key, isAttribute: true },
        ],
      },
    ],
  },
  publishInBulk: {
    kind: 'body',
    stores: '/api/v1/publication-batches',
    bodies: (key, f) => productFilters(key).map((filters) => ({ channel_id: f.channel, filters })),
  },
  createWorkflowApproval: {
    kind: 'body',
    stores: '/api/v1/workflow-approvals',
    bodies: (key) =>
      productFilters(key).map((filters, i) => ({
        code: `census_hidden_${i}`,
        name: 'Census hidden',
        enabled: true,
        filters,
        steps: [{ name: 'Review', order: 1, approvers: ['6740a1b2c3d4e5f6000000c6'] }],
      })),
  },
};

/**
 * Operations whose bodies have `filters` or `headers` that are not product filters or columns,
 * each with why; a new one fails the census until it is probed or listed here.
 */
export const NOT_ATTRIBUTE_QUERIES: Record<string, string> = {
  ...Object.fromEntries(
    ['createWebhook', 'upsertWebhook', 'replaceWebhook', 'patchWebhook'].map((op) => [
      op,
      'headers are the HTTP headers sent with each delivery',
    ]),
  ),
  ...Object.fromEntries(
    ['createWorkflow', 'replaceWorkflow', 'patchWorkflow'].map((op) => [
      op,
      "filters are the cases an orders' workflow applies to, not product filters",
    ]),
  ),
  replaceWorkflowApproval:
    'the same filters as createWorkflowApproval, checked by the same rule (probed in access.e2e)',
  patchWorkflowApproval: 'the same filters as createWorkflowApproval, checked by the same rule (probed in access.e2e)',
};

/** Body properties that can hold product filters or columns. */
const QUERY_PROPERTIES = ['filters', 'headers', 'columns'];

/**
 * The operations that name attribute values in a query, with their probes, and what the census
 * cannot check: a list documenting `attributes.<key>` filters is probed by its query string; a
 * JSON body with `filters`, `headers` or `columns` needs an entry in `HIDDEN_BODY_PROBES` or
 * `NOT_ATTRIBUTE_QUERIES`.
 */
export function hiddenAttributePlan(
  doc: OpenApiDocument,
  ops: Operation[],
): { plan: Map<string, HiddenProbe>; problems: string[] } {
  const plan = new Map<string, HiddenProbe>();
  const problems: string[] = [];
  for (const o of ops) {
    const description = (o.op as { description?: string }).description ?? '';
    if (o.method === 'get' && description.includes('`attributes.<key>=v`')) {
      plan.set(o.operationId, { kind: 'query' });
      continue;
    }
    const media = requestMediaType(o);
    if (media !== 'application/json') continue;
    const body = resolved(doc, o.op.requestBody?.content?.[media]?.schema);
    const named = Object.keys(body?.properties ?? {}).filter((p) => QUERY_PROPERTIES.includes(p));
    if (named.length === 0 || o.operationId in NOT_ATTRIBUTE_QUERIES) continue;
    const probe = HIDDEN_BODY_PROBES[o.operationId];
    if (probe) plan.set(o.operationId, probe);
    else
      problems.push(
        `${nameOf(o)} takes ${named.join(' and ')} in its body: add a probe to HIDDEN_BODY_PROBES, or a reason to NOT_ATTRIBUTE_QUERIES`,
      );
  }
  return { plan, problems };
}
