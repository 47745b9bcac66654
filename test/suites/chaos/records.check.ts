import { isDeepStrictEqual } from 'node:util';
import type { ChaosApi, Json } from './api';
import type { Ledger } from './ledger';
import type { OutboxRow } from './truth';

/** Runs `fn` over `items`, `width` at a time. */
async function each<T>(items: readonly T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

/** Every record of a list, page by page. */
async function all(api: ChaosApi, path: string): Promise<Json[]> {
  const out: Json[] = [];
  for (let page = 1; ; page++) {
    const got = (await api.read(`${path}?limit=100&page=${page}&sort=created_at`)).json;
    out.push(...((got.data as Json[] | undefined) ?? []));
    if (!got.next) return out;
  }
}

/** Every carried-out write is stored: each record reads back at its last write's version, with its fields. */
export async function checkStored(api: ChaosApi, ledger: Ledger, failures: string[]): Promise<number> {
  const expected = [...ledger.expected.values()];
  await each(expected, 8, async (e) => {
    const got = await api.read(e.path);
    if (got.status !== 200) return void failures.push(`stored: ${e.collection} ${e.id} answers ${got.status}`);
    if (got.json.version !== e.version)
      failures.push(
        `stored: ${e.collection} ${e.id} is at version ${got.json.version}, its last write made ${e.version}`,
      );
    for (const [field, value] of Object.entries(e.fields))
      if (!isDeepStrictEqual(got.json[field], value))
        failures.push(
          `stored: ${e.collection} ${e.id} ${field} is ${JSON.stringify(got.json[field])}, not ${JSON.stringify(value)}`,
        );
  });
  return expected.length;
}

/** Decisions seen at the end. */
export interface ApprovalCounts {
  approved: number;
  rejected: number;
  /** Never decided (their decision was not carried out). */
  pending: number;
}

/**
 * Every decided product approval reached the catalog exactly once: an approved one applied, its
 * product one version further with the change and one `products.updated`; a rejected one left its
 * product untouched. Each decision is one event. Every approval's product was made for it alone.
 */
export async function checkApprovals(
  api: ChaosApi,
  events: readonly OutboxRow[],
  failures: string[],
): Promise<ApprovalCounts> {
  const counts: ApprovalCounts = { approved: 0, rejected: 0, pending: 0 };
  const approvals = await all(api, '/product-approvals');
  const updates = (product: string) =>
    events.filter((e) => e.type === 'products.updated' && e.recordId === product).length;
  const decisions = (id: string, type: string) => events.filter((e) => e.type === type && e.recordId === id).length;
  await each(approvals, 8, async (listed) => {
    const approval = (await api.read(`/product-approvals/${listed._id}`)).json;
    const id = approval._id as string;
    const status = approval.status as keyof ApprovalCounts;
    counts[status] += 1;
    if (status === 'pending') return;
    const product = (await api.read(`/products/${approval.product_id}`)).json;
    const what = `approval ${id} (${status}) of product ${approval.product_id}`;
    const type = `product_approvals.${status}`;
    if (decisions(id, type) !== 1) failures.push(`${what}: ${decisions(id, type)} ${type} events`);
    if (status === 'rejected') {
      if (product.version !== 1 || updates(product._id as string) !== 0)
        failures.push(`${what}: the product is at version ${product.version} after a rejection`);
      return;
    }
    const application = (approval.application as Json | undefined)?.status;
    if (application !== 'applied') failures.push(`${what}: application ${application}`);
    if (product.version !== 2) failures.push(`${what}: the product is at version ${product.version}, not 2`);
    if (product.product_approval !== id)
      failures.push(`${what}: the product names approval ${product.product_approval}`);
    if (!isDeepStrictEqual(product.attribute_groups, approval.attribute_groups))
      failures.push(`${what}: the product's attribute groups are ${JSON.stringify(product.attribute_groups)}`);
    if (updates(product._id as string) !== 1)
      failures.push(`${what}: ${updates(product._id as string)} products.updated events for the product`);
  });
  return counts;
}

/** No event was given up on: the dead letters of every app are empty (each one left is listed). */
export async function checkDeadLetters(api: ChaosApi, failures: string[]): Promise<number> {
  const got = await api.read('/dead-letters?limit=100');
  const letters = (got.json.data as Json[] | undefined) ?? [];
  if (got.status !== 200) failures.push(`dead letters: GET answered ${got.status}`);
  for (const l of letters.slice(0, 10)) failures.push(`dead letter: ${JSON.stringify(l).slice(0, 400)}`);
  return letters.length;
}

/**
 * Creates without a unique code: the records of one create (its export's file name, its
 * approval's product) and how to name them in a report.
 */
const CREATES = [
  { path: '/exports', op: 'exports.create', of: (r: Json) => String(r.file_name).replace(/\.(csv|xlsx)$/, '') },
  { path: '/product-approvals', op: 'product_approvals.create', of: (r: Json) => String(r.product_id) },
];

/**
 * Nothing was done twice: every product of a bulk upsert exists once, at version 1, and each
 * create without a unique code made one record. A create made twice after one of its tries failed
 * with its outcome unknown (a 503 or a lost connection) is returned (its retry was run again
 * instead of answered from the first run); any other is a failure here.
 */
export async function checkOnce(api: ChaosApi, ledger: Ledger, failures: string[]): Promise<string[]> {
  for (const bulk of ledger.bulks) {
    for (let i = 0; i < bulk.codes.length; i += 100) {
      const codes = bulk.codes.slice(i, i + 100);
      const page = (await api.read(`/products?code_in=${codes.join(',')}&limit=100`)).json;
      const again = ((page.data as Json[] | undefined) ?? []).filter((p) => p.version !== 1);
      if (page.total !== codes.length)
        failures.push(`bulk upsert of ${codes[0]}…: ${page.total} of ${codes.length} products exist`);
      if (again.length > 0) failures.push(`bulk upsert: ${again.length} products written twice (${again[0].code})`);
    }
  }
  const known: string[] = [];
  for (const c of CREATES) {
    const records = await all(api, c.path);
    const groups = new Map<string, Json[]>();
    for (const r of records) groups.set(c.of(r), [...(groups.get(c.of(r)) ?? []), r]);
    for (const [of, same] of groups) {
      if (same.length === 1) continue;
      const ids = same.map((r) => r._id as string);
      const write = ledger.writes.find((w) => w.op === c.op && w.id !== undefined && ids.includes(w.id));
      const what = `${c.op} for ${of} made ${same.length} records (${ids.join(', ')}); its tries: ${write?.trail ?? 'one'}`;
      if (write?.uncertain) known.push(what);
      else failures.push(what);
    }
  }
  return known;
}
