import type { FuzzClient } from './http';

/**
 * Ids of the records the fixture step made, by the collection path that lists them
 * (`brands`, `attributes/<id>/options`, `webhooks/<id>/deliveries`), in the order they were made.
 */
export class FixtureIds {
  private readonly byPath = new Map<string, string[]>();

  add(collection: string, id: string): void {
    this.byPath.set(collection, [...this.list(collection), id]);
  }

  list(collection: string): string[] {
    return this.byPath.get(collection) ?? [];
  }

  /** Every collection path and its ids (for the report and for tests). */
  entries(): [string, string[]][] {
    return [...this.byPath.entries()];
  }
}

/** Collections a body field names a record of (`brand_id`, `categories: [id]`, `kit_products: [{id}]`). */
export const ID_FIELDS: Record<string, string> = {
  brand_id: 'brands',
  family_id: 'families',
  category_tree_id: 'category-trees',
  category_trees: 'category-trees',
  category_id: 'categories',
  parent_id: 'categories',
  categories: 'categories',
  eligible_service_categories: 'categories',
  ineligible_service_categories: 'categories',
  catalog_id: 'catalogs',
  catalogs: 'catalogs',
  attribute_groups: 'attribute-groups',
  groups: 'attribute-groups',
  group_ids: 'attribute-groups',
  users_groups: 'users-groups',
  user_groups: 'users-groups',
  attribute_id: 'attributes',
  attributes: 'attributes',
  product_id: 'products',
  products: 'products',
  kit_products: 'products',
  kit_services: 'products',
  eligible_service_products: 'products',
  ineligible_service_products: 'products',
  association: 'products',
  channel_id: 'channels',
  workflow_id: 'workflows',
  workflow_approval_id: 'workflow-approvals',
  product_approvals: 'product-approvals',
  from_template_id: 'import-templates',
  batch_id: 'publication-batches',
};

/** The collection a field (with its parents' names, innermost last) names, if the table knows it. */
export function collectionOfField(path: readonly string[]): string | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const name = path[i].replace(/^disassociate_/, '');
    if (ID_FIELDS[name]) return ID_FIELDS[name];
    // `{ id, quantity }` inside `kit_products`: the list's name says what the id is.
    if (name !== 'id' && name !== '_id' && !/^\d+$/.test(name)) return undefined;
  }
  return undefined;
}

/** How many records of each kind the fixture step makes; DELETE is aimed at the ones after the first two. */
export const PER_KIND = 3;

type Json = Record<string, unknown>;

/**
 * File names in several scripts: Latin with accents, dashes, CJK, right-to-left Arabic and Hebrew,
 * emoji (one with joiners), combining characters. The fixtures make an import and a completed
 * export of each; the edge cases (edges.ts) upload, export and download with them.
 */
export const SCRIPT_FILE_NAMES = [
  'relatório de preços ação.csv',
  'lista–preços — 2026.csv',
  '商品リスト名前.csv',
  'تقرير المنتجات.csv',
  'רשימת מוצרים.csv',
  'produtos 🙂🚀.csv',
  '👨‍👩‍👧 família.csv',
  'cafe\u0301 nai\u0308ve.csv',
  'lista–名.csv',
];

/** Fixture collections of the records made with those names (no path lists them, so no case picks them at random). */
export const NAMED_EXPORTS = 'named-files/exports';
export const NAMED_IMPORTS = 'named-files/imports';

/** How long the fixtures wait for their named exports to complete. */
const EXPORTS_WAIT_MS = 60_000;

/** A minimal CSV an import can read. */
export const IMPORT_CSV = 'code;name;enabled\nFZ-1;Caneca;sim\nFZ-2;Copo;não\n';

/** A multipart/form-data body with one file part and some text fields. */
export function multipartBody(
  boundary: string,
  file: { name: string; content: string | Buffer; type?: string },
  fields: Record<string, string> = {},
): Buffer {
  const parts: (string | Buffer)[] = [];
  for (const [k, v] of Object.entries(fields))
    parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`);
  parts.push(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\n` +
      `Content-Type: ${file.type ?? 'text/csv'}\r\n\r\n`,
    file.content,
    `\r\n--${boundary}--\r\n`,
  );
  return Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
}

/**
 * Makes a few real records of every kind through the API, so that path ids exist and
 * valid-looking requests reach deep code. Throws, naming the step, when one is refused.
 */
export async function createFixtures(client: FuzzClient, apiKey: string): Promise<FixtureIds> {
  const ids = new FixtureIds();
  const call = async (method: string, path: string, body?: unknown, extra: Record<string, string> = {}) => {
    const res = await client.send({
      method,
      path: `/api/v1/${path}`,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...extra,
      },
      body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
    });
    if (res.status < 200 || res.status > 299)
      throw new Error(
        `fixture ${method} ${path} failed: ${res.status} ${res.error ?? res.body.toString().slice(0, 500)}`,
      );
    return (res.body.length > 0 ? JSON.parse(res.body.toString()) : {}) as Json;
  };
  const make = async (collection: string, body: Json, path = collection) => {
    const made = await call('POST', path, body);
    ids.add(collection, made._id as string);
    return made._id as string;
  };
  const each = async (make1: (i: number) => Promise<unknown>) => {
    for (let i = 0; i < PER_KIND; i++) await make1(i);
  };
  const name = (i: number) => ({ en: `Fuzz ${i}`, 'pt-BR': `Fuzz ${i}` });

  // Webhooks first, so the events of everything after them are fanned out to deliveries.
  const hooks: string[] = [];
  for (const collection of ['brands', 'products', 'orders'])
    hooks.push(await make('webhooks', { collection, url: `https://hooks.example.com/${collection}` }));
  await each((i) => make('brands', { code: `fz-brand-${i}`, name: name(i) }));
  await each((i) => make('category-trees', { code: `fz-tree-${i}`, name: name(i) }));
  const tree = ids.list('category-trees')[0];
  await each((i) => make('categories', { code: `fz-cat-${i}`, name: name(i), category_tree_id: tree }));
  await each((i) => make('attribute-groups', { key: `fz_group_${i}`, name: name(i) }));
  await each((i) => make('families', { code: `fz-family-${i}`, name: name(i) }));
  await each((i) =>
    make('users-groups', {
      source_id: 'fuzz',
      name: `Fuzz group ${i}`,
      users: [{ id: `6740a1b2c3d4e5f60123456${i}`, name: `User ${i}` }],
      has_full_product_access: i === 0,
    }),
  );
  await each((i) => make('catalogs', { code: `fz-catalog-${i}`, name: name(i) }));
  const group = ids.list('attribute-groups')[0];
  await each((i) =>
    make('attributes', {
      key: `fz_attr_${i}`,
      name: name(i),
      type: ['select', 'text', 'number'][i],
      association: 'product_and_sku',
      protected_by_lgpd: false,
      groups: [{ _id: group }],
    }),
  );
  const select = ids.list('attributes')[0];
  await each((i) =>
    make(`attributes/${select}/options`, { value: `v${i}`, label: name(i) }, `attributes/${select}/options`),
  );
  const [brand] = ids.list('brands');
  const [category] = ids.list('categories');
  const types = ['simple', 'kit', 'service', 'simple', 'kit', 'service'];
  for (let i = 0; i < types.length; i++)
    await make('products', {
      code: `FZ-P-${i}`,
      name: name(i),
      type: types[i],
      brand_id: brand,
      categories: [category],
      catalogs: [{ _id: ids.list('catalogs')[0], user_groups: [ids.list('users-groups')[0]] }],
    });
  const products = ids.list('products');
  await make('product-relations', {
    type: 'kit_products',
    product_id: products[1],
    kit_products: [{ id: products[0], quantity: 2 }],
  });
  await make('product-relations', {
    type: 'kit_services',
    product_id: products[1],
    kit_services: [{ id: products[2], quantity: 1 }],
  });
  await make('product-relations', {
    type: 'kit_products',
    product_id: products[4],
    kit_products: [{ id: products[3], quantity: 1 }],
  });
  await each((i) =>
    make('workflows', {
      code: `fz-flow-${i}`,
      name: `Flow ${i}`,
      enabled: true,
      default: i === 0,
      steps: [
        {
          name: 'Picking',
          code: 'picking',
          allocation_time: 4,
          status: [{ code: 'new', name: 'New', moves_to: ['shipped'] }],
        },
        {
          name: 'Delivery',
          code: 'delivery',
          status: [
            { code: 'shipped', name: 'Shipped' },
            { code: 'delivered', name: 'Delivered', outcome: 'COMPLETED' },
          ],
        },
      ],
    }),
  );
  await each((i) =>
    make('workflow-approvals', {
      code: `fz-approval-${i}`,
      name: `Approval ${i}`,
      enabled: true,
      default: i === 0,
      steps: [{ name: 'Review', order: 1, approvers: ['6740a1b2c3d4e5f601234560'] }],
    }),
  );
  await each((i) =>
    make('product-approvals', {
      product_id: products[i === 0 ? 1 : 4],
      kit_products: [{ id: products[3], quantity: i + 1 }],
    }),
  );
  await each((i) =>
    make('orders', {
      code: `FZ-O-${i}`,
      external_code: `mkt-${i}`,
      channel: { code: 'marketplace' },
      customer: { email: `buyer${i}@example.com` },
      items_count: 1,
      sla: 120,
    }),
  );
  await each((i) =>
    make('import-templates', { name: `Fuzz template ${i}`, mapped_headers: { A: 'code', B: 'name.pt', C: 'enabled' } }),
  );
  for (let i = 0; i < PER_KIND; i++) {
    const boundary = `fuzzfixture${i}`;
    const res = await client.send({
      method: 'POST',
      path: '/api/v1/imports',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: multipartBody(boundary, { name: `fixture-${i}.csv`, content: IMPORT_CSV }),
    });
    if (res.status !== 201) throw new Error(`fixture import upload failed: ${res.status} ${res.body.toString()}`);
    ids.add('imports', (JSON.parse(res.body.toString()) as Json)._id as string);
  }
  await each((i) => make('exports', { file_type: i === 1 ? 'xlsx' : 'csv', filters: { enabled: true } }));
  for (const [i, name] of SCRIPT_FILE_NAMES.entries()) {
    const boundary = `fuzznamed${i}`;
    const res = await client.send({
      method: 'POST',
      path: '/api/v1/imports',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: multipartBody(boundary, { name, content: IMPORT_CSV }),
    });
    if (res.status !== 201) throw new Error(`fixture upload of ${JSON.stringify(name)} failed: ${res.status}`);
    ids.add(NAMED_IMPORTS, (JSON.parse(res.body.toString()) as Json)._id as string);
    const made = await call('POST', 'exports', { file_type: 'csv', file_name: name, filters: { enabled: true } });
    ids.add(NAMED_EXPORTS, made._id as string);
  }
  await each((i) =>
    make('channels', {
      code: `fz-shop-${i}`,
      name: `Shop ${i}`,
      endpoint: { url: `https://shop${i}.example.com/listings` },
      language: 'pt-BR',
      mapping: [{ field: 'sku', source: 'code' }],
    }),
  );
  const channel = ids.list('channels')[0];
  await each((i) => make('publications', { product_id: products[i], channel_id: channel }));
  await each(async () => {
    const batch = await call('POST', 'publications/bulk', { channel_id: channel, filters: { enabled: 'true' } });
    ids.add('publication-batches', batch._id as string);
  });
  await each((i) => make('api-keys', { name: `Fuzz key ${i}`, scopes: ['brands:read'] }));
  // The named exports' files are downloaded by edge cases: they must be written by then.
  const exportsUntil = Date.now() + EXPORTS_WAIT_MS;
  for (const id of ids.list(NAMED_EXPORTS)) {
    for (;;) {
      const status = (await call('GET', `exports/${id}`)).status as string;
      if (status === 'completed') break;
      if (status === 'failed' || Date.now() > exportsUntil)
        throw new Error(`fixture export ${id} is ${status} (it should have completed)`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  // The fan-out turns the events above into deliveries of the hooks, shortly.
  const until = Date.now() + 15_000;
  for (const hook of hooks) {
    for (;;) {
      const listed = await call('GET', `webhooks/${hook}/deliveries?limit=${PER_KIND}`);
      const data = (listed.data as Json[] | undefined) ?? [];
      if (data.length >= PER_KIND || Date.now() > until) {
        for (const d of data) ids.add(`webhooks/${hook}/deliveries`, d._id as string);
        break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return ids;
}
