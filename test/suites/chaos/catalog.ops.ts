import type { Json } from './api';
import type { Lane, Owned } from './lane';
import { triesOf, type WriteResult } from './ledger';

/** Catalog collections the writer creates and renames, with their paths. */
const TAXONOMY = { brands: '/brands', families: '/families', categories: '/categories', catalogs: '/catalogs' };

/** The record with this code, if the collection has one. */
async function byCode(lane: Lane, path: string, code: string): Promise<Json | undefined> {
  const page = await lane.api.read(`${path}?code=${encodeURIComponent(code)}`, lane.opts.writeDeadlineMs);
  return (page.json.data as Json[] | undefined)?.[0];
}

function own(lane: Lane, collection: string, path: string, record: Json | undefined): void {
  if (record)
    lane.owned.push({
      collection,
      path: `${path}/${record._id}`,
      id: record._id as string,
      version: record.version as number,
    });
}

/** Creates a brand, family, category or catalog. */
export async function createTaxonomy(lane: Lane): Promise<void> {
  const collection = lane.random.pick(Object.keys(TAXONOMY)) as keyof typeof TAXONOMY;
  const path = TAXONOMY[collection];
  const code = lane.nextName().toLowerCase().replace('-', '_');
  const name = { en: `Chaos ${code}` };
  const body: Json = {
    code,
    name,
    ...(collection === 'categories' ? { category_tree_id: lane.fixtures.categoryTreeId } : {}),
  };
  const made = await lane.create(`${collection}.create`, collection, path, body, () => byCode(lane, path, code), {
    expect: { code, name },
  });
  own(lane, collection, path, made);
}

/** Creates a product. */
export async function createProduct(lane: Lane): Promise<Json | undefined> {
  const code = `P-${lane.nextName()}`;
  const name = { en: `Product ${code}` };
  const made = await lane.create(
    'products.create',
    'products',
    '/products',
    { code, name, type: 'simple' },
    () => byCode(lane, '/products', code),
    { expect: { code, name } },
  );
  own(lane, 'products', '/products', made);
  return made;
}

/** Renames one of the lane's catalog records or products (a PATCH with If-Match). */
export async function renameOwned(lane: Lane, products: boolean): Promise<void> {
  const mine = lane.owned.filter((r) => (r.collection === 'products') === products);
  if (mine.length === 0) return products ? void (await createProduct(lane)) : createTaxonomy(lane);
  const rec: Owned = lane.random.pick(mine);
  const name = { en: `Renamed ${lane.nextName()}` };
  await lane.change(
    `${rec.collection}.update`,
    rec,
    { method: 'PATCH', path: rec.path, body: { name } },
    (now) => (now.name as Json | undefined)?.en === name.en,
    { name },
  );
}

/**
 * A bulk upsert of new products (100 to 300): a request the gateway holds long enough for a kill
 * to land in it. Retried with its Idempotency-Key; its products must each be written once.
 */
export async function bulkProducts(lane: Lane): Promise<void> {
  const name = lane.nextName();
  const codes = Array.from({ length: lane.random.int(100, 300) }, (_, i) => `B-${name}-${i}`);
  const items = codes.map((code) => ({ code, name: { en: `Bulk ${code}` }, type: 'simple' }));
  const out = await lane.api.write(
    { method: 'POST', path: '/products/bulk', body: { items }, headers: { 'idempotency-key': lane.idempotencyKey() } },
    lane.opts.writeDeadlineMs,
  );
  let result: WriteResult = out.status === 200 ? 'acked' : 'refused';
  if (result !== 'acked' && (out.uncertain || out.status === 0)) {
    const some = await byCode(lane, '/products', codes[0]);
    result = some ? 'applied' : out.status === 0 || out.status >= 500 ? 'abandoned' : 'refused';
  }
  const failed = ((out.json.data as Json[] | undefined) ?? []).filter((r) => r.status === 'failed');
  lane.ledger.serverErrors.push(...out.serverErrors);
  lane.ledger.add({
    lane: lane.n,
    op: 'products.bulk',
    result: failed.length > 0 ? 'refused' : result,
    ...(result === 'acked' && failed.length === 0
      ? {}
      : { answer: `${out.status} ${out.error ?? JSON.stringify(failed[0]?.error ?? '')}`.slice(0, 300) }),
    ...triesOf(out),
  });
  if (result === 'acked' || result === 'applied') lane.ledger.bulks.push({ codes });
}
