import { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { readRows, stripFormulaQuote, type Cell, type SheetFormat } from '@pim/sheets';
import { EVERY_TYPE, GOOD_VALUES } from '@pim/testing';
import { eventually, startE2E, type E2E } from './platform';

type Json = Record<string, unknown>;

const FINAL = ['completed', 'failed'];
const MUGS = 30;
const VASES = 30;
const USER = '6740a1b2c3d4e5f601234599';

/** The rows of a downloaded file, header first. */
async function rowsOf(format: SheetFormat, bytes: Buffer): Promise<Cell[][]> {
  const out: Cell[][] = [];
  for await (const r of readRows({ format, open: async () => Readable.from([bytes]) }, undefined)) out.push(r.cells);
  return out;
}

/** A file's rows as objects by header. */
const objects = (rows: Cell[][]): Record<string, Cell>[] =>
  rows.slice(1).map((r) => Object.fromEntries(rows[0].map((h, i) => [String(h), r[i] ?? null])));

// Exports through the whole platform, over HTTP only: create → pg-boss worker in io-jobs → the
// catalog's keyset scan (filtered in SQL) → a streaming CSV or XLSX writer → file storage →
// download; the three report types, filters, chosen columns, downloaded_by, retry, and an export
// of each report type imported back (with no template, or through one), which changes nothing.
describe('exports through the whole platform', () => {
  let e2e: E2E;
  let base: string;
  let auth: Record<string, string>;
  const ids: Record<string, string> = {};
  const productIds: string[] = [];

  const create = async (body: Json) => e2e.api('POST', '/api/v1/exports', body);
  /** Polls the export until it is completed or failed, tolerating the moments its app is down (503). */
  const final = async (id: string, timeoutMs = 60_000): Promise<Json> => {
    let last: Json = {};
    await eventually(async () => {
      const r = await e2e.api('GET', `/api/v1/exports/${id}`);
      if (r.status === 200) last = r.json;
      return FINAL.includes(last.status as string);
    }, timeoutMs);
    return last;
  };
  const download = async (id: string, key = e2e.adminKey) => {
    const res = await fetch(`${base}/api/v1/exports/${id}/download`, { headers: { authorization: `Bearer ${key}` } });
    return { res, bytes: Buffer.from(await res.arrayBuffer()) };
  };
  /** Creates an export, waits for it and reads its file back. */
  const run = async (body: Json) => {
    const created = await create(body);
    expect(created.status).toBe(201);
    const done = await final(created.json._id as string);
    expect(done.status).toBe('completed');
    const { res, bytes } = await download(done._id as string);
    expect(res.status).toBe(200);
    return { done, res, rows: await rowsOf(body.file_type as SheetFormat, bytes) };
  };

  /** Starts an import and answers it once it is final. */
  const startedImport = async (id: string): Promise<Json> => {
    expect((await e2e.api('POST', `/api/v1/imports/${id}/start`)).status).toBe(200);
    let finished: Json = {};
    await eventually(async () => {
      finished = (await e2e.api('GET', `/api/v1/imports/${id}`)).json;
      return ['completed', 'completed_with_errors', 'failed'].includes(finished.status as string);
    }, 60_000);
    return finished;
  };

  beforeAll(async () => {
    // Round trips read every product before and after, page by page: more than a minute's default calls.
    e2e = await startE2E('e2eexports', {
      EXPORT_ATTEMPTS: '1',
      EXPORT_BATCH_SIZE: '7',
      RATE_LIMIT_PER_MINUTE: '100000',
    });
    base = e2e.platform.gatewayUrl.replace(/\/api\/v1$/, '');
    auth = { authorization: `Bearer ${e2e.adminKey}` };
    const attributes: string[] = [];
    for (const [key, spec] of Object.entries(EVERY_TYPE)) {
      const r = await e2e.api('POST', '/api/v1/attributes', {
        key,
        name: { en: `The ${key}` },
        association: 'product',
        protected_by_lgpd: false,
        ...spec,
      });
      expect(r.status).toBe(201);
      ids[key] = r.json._id as string;
      attributes.push(ids[key]);
      if (spec.type === 'select' || spec.type === 'multiselect')
        for (const value of ['red', 'blue'])
          expect(
            (await e2e.api('POST', `/api/v1/attributes/${r.json._id}/options`, { value, label: { en: value } })).status,
          ).toBe(201);
    }
    for (const code of ['acme', 'globex'])
      ids[code] = (await e2e.api('POST', '/api/v1/brands', { code, name: { en: code } })).json._id as string;
    const family = await e2e.api('POST', '/api/v1/families', {
      code: 'home',
      name: { en: 'Home' },
      attributes: attributes.map((_id) => ({ _id, required: false })),
    });
    expect(family.status).toBe(201);
    ids.home = family.json._id as string;
    const tree = await e2e.api('POST', '/api/v1/category-trees', { code: 'main', name: { en: 'Main' } });
    ids.main = tree.json._id as string;
    for (const code of ['kitchen', 'garden'])
      ids[code] = (
        await e2e.api('POST', '/api/v1/categories', { code, name: { en: code }, category_tree_id: ids.main })
      ).json._id as string;
    const items = [
      ...Array.from({ length: MUGS }, (_, i) => ({
        code: `mug-${i}`,
        name: { pt: `Caneca ${i}`, en: `Mug ${i}` },
        description: { en: `A mug, "number" ${i}; with, commas` },
        type: 'simple',
        family_id: ids.home,
        brand_id: ids.acme,
        categories: [ids.kitchen],
        tags: ['summer', 'sale'],
        attributes: GOOD_VALUES,
      })),
      ...Array.from({ length: VASES }, (_, i) => ({
        code: `vase-${i}`,
        name: { pt: `Vaso ${i}` },
        type: 'simple',
        family_id: ids.home,
        brand_id: ids.globex,
        categories: [ids.garden],
        enabled: i % 2 === 0,
        attributes: { a_text: 'xyz', a_number: i },
      })),
      { code: 'install', name: { en: 'Installation' }, type: 'service' },
      { code: 'gift-wrap', name: { en: 'Gift wrap' }, type: 'service' },
    ];
    const bulk = await e2e.api('POST', '/api/v1/products/bulk', { items });
    expect(bulk.status).toBe(200);
    for (const r of bulk.json.data as Json[]) {
      expect(r).toMatchObject({ status: 'created' });
      ids[r.code as string] = r._id as string;
      productIds.push(r._id as string);
    }
    // Service eligibility of two mugs: products and categories, eligible and not.
    const relation = async (type: string, productId: string, list: Json[]) =>
      expect(
        (await e2e.api('POST', '/api/v1/product-relations', { type, product_id: productId, [type]: list })).status,
      ).toBe(201);
    await relation('eligible_service_products', ids['mug-0'], [{ id: ids.install }, { id: ids['gift-wrap'] }]);
    await relation('ineligible_service_categories', ids['mug-0'], [{ id: ids.garden, category_tree_id: ids.main }]);
    await relation('eligible_service_categories', ids['mug-1'], [{ id: ids.kitchen }]);
  }, 180_000);

  afterAll(async () => {
    await e2e?.close();
  });

  it.each(['csv', 'xlsx'] as const)(
    'writes a general %s export: every field and language, attribute values formatted by type, one row per product',
    async (file_type) => {
      const { done, res, rows } = await run({ file_type });
      expect(done).toMatchObject({
        report_type: 'general',
        metadata: { total_products: MUGS + VASES + 2, total_field_failed: 0, total_item_failed: 0 },
        rows_count: MUGS + VASES + 2,
      });
      expect(new Set(done.products as string[])).toEqual(new Set(productIds));
      expect(res.headers.get('content-type')).toContain(file_type === 'csv' ? 'text/csv' : 'spreadsheetml');
      expect(res.headers.get('content-disposition')).toMatch(
        new RegExp(`attachment; filename="?products-general-.*\\.${file_type}"?$`),
      );
      const header = rows[0];
      for (const column of [
        '_id',
        'code',
        'type',
        'enabled',
        'name.en',
        'name.pt',
        'description.en',
        'brand',
        'categories',
        'tags',
      ])
        expect(header).toContain(column);
      expect(header).toEqual(
        expect.arrayContaining(['attributes.a_price', 'attributes.a_textarea.en', 'attributes.a_textarea.pt']),
      );
      const byCode = new Map(objects(rows).map((r) => [r.code, r]));
      expect(byCode.size).toBe(MUGS + VASES + 2);
      expect(byCode.get('mug-3')).toMatchObject({
        'name.pt': 'Caneca 3',
        'name.en': 'Mug 3',
        'description.en': 'A mug, "number" 3; with, commas',
        brand: 'acme',
        categories: 'kitchen',
        tags: 'summer|sale',
        'attributes.a_text': 'abc',
        'attributes.a_textarea.pt': 'Descrição',
        'attributes.a_multiselect': 'blue|red',
        'attributes.a_price': '19.90 BRL',
        'attributes.a_metric': '1.25 kg',
      });
      const mug = byCode.get('mug-3')!;
      expect(Number(mug['attributes.a_number'])).toBe(12);
      expect(String(mug.enabled)).toBe('true');
      expect(String(byCode.get('vase-1')!.enabled)).toBe('false');
      if (file_type === 'csv') {
        expect(mug['attributes.a_date']).toBe('2024-01-31');
        // A date-time column names its zone (UTC by default); its cells say their offset.
        expect(mug['created_at (UTC)']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        expect(mug['attributes.a_datetime (UTC)']).toBe('2024-01-31T15:00:00.000Z');
      } else {
        // Typed cells: numbers, booleans and dates read back as such (dates and times in UTC).
        expect(mug['attributes.a_number']).toBe(12);
        expect(mug.enabled).toBe(true);
        expect(mug['attributes.a_boolean']).toBe(false);
        expect(mug['attributes.a_date']).toEqual(new Date(Date.UTC(2024, 0, 31)));
        expect(mug['attributes.a_datetime (UTC)']).toEqual(new Date('2024-01-31T15:00:00.000Z'));
        expect(mug['created_at (UTC)']).toBeInstanceOf(Date);
      }
    },
  );

  it.each(['csv', 'xlsx'] as const)(
    'writes a per_attributes %s export: a row per product and attribute value',
    async (file_type) => {
      const { done, rows } = await run({ file_type, report_type: 'per_attributes', filters: { brands: [ids.acme] } });
      const perMug = Object.keys(GOOD_VALUES).length + 1; // the localizable text gives a row per language
      // The values include a date-time attribute's: the value column names the zone they are written in.
      expect(rows[0]).toEqual(['code', 'attribute_key', 'attribute_name', 'language', 'value (UTC)']);
      expect(rows).toHaveLength(1 + MUGS * perMug);
      expect(done).toMatchObject({ metadata: { total_products: MUGS }, rows_count: MUGS * perMug });
      const mug = objects(rows).filter((r) => r.code === 'mug-0');
      expect(mug.map((r) => r.attribute_key)).toEqual(
        Object.keys(GOOD_VALUES)
          .sort()
          .flatMap((k) => (k === 'a_textarea' ? [k, k] : [k])),
      );
      expect(mug.find((r) => r.attribute_key === 'a_textarea' && r.language === 'en')).toMatchObject({
        attribute_name: 'The a_textarea',
        'value (UTC)': 'Description',
      });
      expect(mug.find((r) => r.attribute_key === 'a_price')!['value (UTC)']).toBe('19.90 BRL');
    },
  );

  it.each(['csv', 'xlsx'] as const)(
    'writes an eligibility_services %s export: a row per product and eligibility item',
    async (file_type) => {
      const { done, rows } = await run({ file_type, report_type: 'eligibility_services' });
      expect(rows[0]).toEqual([
        'code',
        'product_name',
        'relation',
        'eligible',
        'item_type',
        'item_id',
        'item_code',
        'item_name',
        'category_tree',
      ]);
      const items = objects(rows).map((r) => [
        r.code,
        r.relation,
        String(r.eligible),
        r.item_type,
        r.item_code,
        r.category_tree,
      ]);
      expect(items).toEqual([
        ['mug-0', 'eligible_service_products', 'true', 'product', 'install', null],
        ['mug-0', 'eligible_service_products', 'true', 'product', 'gift-wrap', null],
        ['mug-0', 'ineligible_service_categories', 'false', 'category', 'garden', 'main'],
        ['mug-1', 'eligible_service_categories', 'true', 'category', 'kitchen', 'main'],
      ]);
      expect(done).toMatchObject({ rows_count: 4, metadata: { total_products: MUGS + VASES + 2 } });
    },
  );

  it('narrows by brand, category, search and more, in the chosen columns under their titles', async () => {
    const codesOf = async (filters: Json) => {
      const { rows } = await run({
        file_type: 'csv',
        filters,
        headers: [
          { label: 'SKU', value: 'code', isAttribute: false },
          { label: 'Number', value: 'a_number', isAttribute: true },
        ],
      });
      expect(rows[0]).toEqual(['SKU', 'Number']);
      return rows.slice(1).map((r) => String(r[0]));
    };
    expect((await codesOf({ brands: [ids.globex] })).sort()).toEqual(
      Array.from({ length: VASES }, (_, i) => `vase-${i}`).sort(),
    );
    expect(await codesOf({ categories: [ids.kitchen] })).toHaveLength(MUGS);
    expect((await codesOf({ _search: 'vaso 1' })).sort()).toEqual(
      ['vase-1', ...Array.from({ length: 10 }, (_, i) => `vase-1${i}`)].sort(),
    );
    expect(await codesOf({ brands: [ids.globex], enabled: false })).toHaveLength(VASES / 2);
    expect(await codesOf({ _id_in: [ids['mug-2'], ids['vase-2']] })).toEqual([`mug-2`, `vase-2`]);
    expect(
      await codesOf({
        attr_control: [{ attribute_item: { id: ids.a_email }, attributes: { key: 'a_email', name: 'Email' } }],
      }),
    ).toHaveLength(MUGS);
    const nothing = await codesOf({ custom_period: ['2000-01-01T00:00:00.000Z', '2000-12-31T00:00:00.000Z'] });
    expect(nothing).toEqual([]);

    // A catalog's products (the catalog runs the filter in SQL).
    const catalog = await e2e.api('POST', '/api/v1/catalogs', { code: 'b2b', name: { en: 'B2B' }, user_groups: [] });
    expect(catalog.status).toBe(201);
    for (const code of ['mug-7', 'vase-7'])
      expect(
        (
          await e2e.api('PATCH', `/api/v1/products/${ids[code]}`, {
            catalogs: [{ _id: catalog.json._id, user_groups: [] }],
          })
        ).status,
      ).toBe(200);
    expect((await codesOf({ catalog: catalog.json._id })).sort()).toEqual(['mug-7', 'vase-7']);

    // Products with a product approval of a workflow approval, in a state (asked of the workflow app per batch).
    const flow = await e2e.api('POST', '/api/v1/workflow-approvals', {
      code: 'eligibility',
      name: 'Eligibility changes',
      enabled: true,
      steps: [{ name: 'Services', order: 1, approvers: [USER] }],
    });
    expect(flow.status).toBe(201);
    for (const code of ['mug-5', 'vase-5'])
      expect(
        (
          await e2e.api('POST', '/api/v1/product-approvals', {
            product_id: ids[code],
            eligible_service_products: [{ id: ids.install }],
          })
        ).status,
      ).toBe(201);
    expect((await codesOf({ workflow_approval: flow.json._id, workflow_approval_status: 'pending' })).sort()).toEqual([
      'mug-5',
      'vase-5',
    ]);
    expect(await codesOf({ workflow_approval: flow.json._id, workflow_approval_status: 'approved' })).toEqual([]);
  });

  it('refuses columns and filters it cannot honour with 400, and unknown exports with 404', async () => {
    const bad = await create({ file_type: 'csv', headers: [{ label: 'Colour', value: 'colour', isAttribute: true }] });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toContain("names no live attribute 'colour'");
    expect((await create({ file_type: 'pdf' })).status).toBe(400);
    expect((await create({ file_type: 'csv', filters: { brand: ids.acme } })).status).toBe(400);
    expect((await e2e.api('GET', '/api/v1/exports/6740a1b2c3d4e5f601234567')).status).toBe(404);
    // An export is never changed after it is created: there is no PATCH or PUT.
    expect((await e2e.api('PATCH', '/api/v1/exports/6740a1b2c3d4e5f601234567', { file_name: 'x' })).status).toBe(405);
  });

  it('writes CSV as RFC 4180 with a UTF-8 byte order mark, or without one when asked', async () => {
    const bytesOf = async (body: Json) => {
      const created = await create({ file_type: 'csv', filters: { _id_in: [ids['mug-0']] }, ...body });
      const done = await final(created.json._id as string);
      return (await download(done._id as string)).bytes;
    };
    const withBom = await bytesOf({});
    expect([...withBom.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(withBom.toString('utf8')).toContain('\r\n');
    expect(withBom.toString('utf8')).toContain('"A mug, ""number"" 0; with, commas"');
    const without = await bytesOf({ csv_bom: false });
    expect(without.subarray(0, 4).toString('utf8')).toBe('_id,');
  });

  it('records who downloaded the file, each user once', async () => {
    const { done } = await run({ file_type: 'xlsx', file_name: 'mine', filters: { _id_in: [ids['mug-0']] } });
    expect(done.file_name).toBe('mine.xlsx');
    // Ana reads an export she did not create: her users group sees every product (a user whose
    // groups see only some products reads only her own exports).
    const group = await e2e.api('POST', '/api/v1/users-groups', {
      source_id: 'sso',
      name: 'exporters',
      users: [{ id: USER, name: 'Ana' }],
      has_full_product_access: true,
    });
    expect(group.status).toBe(201);
    const key = await e2e.newKey(['exports:read'], { user_id: USER, user_name: 'Ana' });
    for (let i = 0; i < 2; i++) expect((await download(done._id as string, key)).res.status).toBe(200);
    const after = (await e2e.api('GET', `/api/v1/exports/${done._id}`)).json;
    expect(after.downloaded_by).toEqual([USER]);
  });

  it('fails while the catalog is away, is retried to completion, and a completed one is not retried (409)', async () => {
    e2e.platform.kill('catalog', 'SIGKILL');
    let failed: Json;
    try {
      const created = await create({ file_type: 'csv', filters: { brands: [ids.acme] } });
      expect(created.status).toBe(201);
      failed = await final(created.json._id as string);
    } finally {
      await e2e.platform.restart('catalog');
    }
    expect(failed.status).toBe('failed');
    expect((failed.logs as string[]).at(-1)).toMatch(/Failed: .*catalog/);
    expect((await download(failed._id as string)).res.status).toBe(409);
    // Until io-jobs's connection to the restarted catalog is back (its reconnect backs off), a
    // one-try export can still fail: wait for a small one to complete before retrying.
    await eventually(async () => {
      const probe = await create({ file_type: 'csv', filters: { _id_in: [ids['mug-0']] } });
      return (await final(probe.json._id as string)).status === 'completed';
    }, 60_000);
    const retried = await e2e.api('POST', `/api/v1/exports/${failed._id}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.json.status).toBe('pending');
    const done = await final(failed._id as string);
    expect(done).toMatchObject({ status: 'completed', metadata: { total_products: MUGS } });
    const again = await e2e.api('POST', `/api/v1/exports/${failed._id}/retry`);
    expect(again.status).toBe(409);
    expect(again.json.message).toMatch(/is completed.*from completed to pending/);
    // Its life as events on NATS: created, failed, updated (retried), completed.
    const mine = async (action: string) =>
      (await e2e.stream.messages(`${e2e.stream.subjectPrefix}pim.io-jobs.exports.${action}`)).filter(
        (m) => ((m.data as Json).data as Json)?._id === failed._id,
      );
    await eventually(async () => (await mine('completed')).length === 1);
    expect(await mine('created')).toHaveLength(1);
    expect(await mine('failed')).toHaveLength(1);
    expect((await mine('updated')).length).toBeGreaterThanOrEqual(2);
    expect(((await mine('completed'))[0].data as Json).data).toMatchObject({ status: 'completed', rows_count: MUGS });
  }, 120_000);

  it.each([
    { file_type: 'csv', time_zone: undefined, how: 'with no template: the headers map themselves' },
    { file_type: 'xlsx', time_zone: 'America/Sao_Paulo', how: 'through a template made by one call' },
  ] as const)(
    'round trip: a general $file_type export in $time_zone imports back $how, and changes no product',
    async ({ file_type, time_zone }) => {
      const before = new Map<string, Json>();
      for (let page = 1; ; page++) {
        const r = await e2e.api('GET', `/api/v1/products?limit=100&page=${page}`);
        for (const p of r.json.data as Json[]) before.set(p.code as string, p);
        if (!r.json.next) break;
      }
      const { rows, done } = await run({ file_type, ...(time_zone ? { time_zone } : {}) });
      const header = rows[0] as string[];
      const zone = time_zone ?? 'UTC';
      expect(done.time_zone).toBe(zone);
      expect(header).toEqual(expect.arrayContaining([`attributes.a_datetime (${zone})`, `updated_at (${zone})`]));
      const form = new FormData();
      if (time_zone) {
        // Each header mapped to the field it names, its zone aside: the header still tells the import the zone.
        const template = await e2e.api('POST', '/api/v1/import-templates', {
          name: `round trip ${file_type}`,
          mapped_headers: Object.fromEntries(header.map((h) => [h, h.replace(/ \([^()]+\)$/, '')])),
        });
        expect(template.status).toBe(201);
        form.append('from_template_id', template.json._id as string);
      }
      const { bytes } = await download(done._id as string);
      form.append('file', new Blob([bytes]), `round-trip.${file_type}`);
      const uploaded = await fetch(`${base}/api/v1/imports`, { method: 'POST', headers: auth, body: form });
      const imp = (await uploaded.json()) as Json;
      expect(uploaded.status).toBe(201);
      expect(imp.status).toBe('mapped');
      expect(Object.keys(imp.mapped_headers as Json)).toHaveLength(header.length);
      const finished = await startedImport(imp._id as string);
      expect(finished).toMatchObject({ status: 'completed', commit_count: before.size, errors_count: 0 });
      // Every product as it was: the same values, the same version (nothing was written).
      for (let page = 1; ; page++) {
        const r = await e2e.api('GET', `/api/v1/products?limit=100&page=${page}`);
        for (const p of r.json.data as Json[]) expect(p).toEqual(before.get(p.code as string));
        if (!r.json.next) break;
      }
    },
    120_000,
  );

  /** Every record of a collection, page by page, by `_id`. */
  const everyRecord = async (path: string): Promise<Map<string, Json>> => {
    const all = new Map<string, Json>();
    for (let page = 1; ; page++) {
      const r = await e2e.api('GET', `${path}?limit=100&page=${page}`);
      for (const x of r.json.data as Json[]) all.set(x._id as string, x);
      if (!r.json.next) break;
    }
    return all;
  };

  it.each([
    { report_type: 'per_attributes', file_type: 'csv', how: 'with no template: the headers map themselves' },
    { report_type: 'eligibility_services', file_type: 'xlsx', how: 'through a template made by one call' },
  ] as const)(
    'round trip: the $report_type report as $file_type imports back $how, and changes no product and no relation',
    async ({ report_type, file_type }) => {
      const products = await everyRecord('/api/v1/products');
      const relations = await everyRecord('/api/v1/product-relations');
      expect(relations.size).toBeGreaterThanOrEqual(3);
      const { rows, done } = await run({ file_type, report_type });
      const header = rows[0] as string[];
      expect(rows.length).toBeGreaterThan(1);
      const form = new FormData();
      if (report_type === 'per_attributes') {
        // A date-time attribute among the values: the value column names its zone, which the import reads.
        expect(header).toEqual(['code', 'attribute_key', 'attribute_name', 'language', 'value (UTC)']);
      } else {
        // Each header mapped to the field it names, a zone suffix aside.
        const template = await e2e.api('POST', '/api/v1/import-templates', {
          name: `round trip ${report_type}`,
          mapped_headers: Object.fromEntries(header.map((h) => [h, h.replace(/ \([^()]+\)$/, '')])),
        });
        expect(template.status).toBe(201);
        form.append('from_template_id', template.json._id as string);
      }
      const { bytes } = await download(done._id as string);
      form.append('file', new Blob([bytes]), `round-trip-${report_type}.${file_type}`);
      const uploaded = await fetch(`${base}/api/v1/imports`, { method: 'POST', headers: auth, body: form });
      const imp = (await uploaded.json()) as Json;
      expect(uploaded.status).toBe(201);
      expect(imp).toMatchObject({ status: 'mapped', rows_count: rows.length - 1 });
      expect(Object.keys(imp.mapped_headers as Json)).toHaveLength(header.length);
      const finished = await startedImport(imp._id as string);
      expect(finished).toMatchObject({ status: 'completed', commit_count: rows.length - 1, errors_count: 0 });
      // Every product and relation as it was: the same values, the same version (nothing was written).
      expect(await everyRecord('/api/v1/products')).toEqual(products);
      expect(await everyRecord('/api/v1/product-relations')).toEqual(relations);
    },
    120_000,
  );

  it('writes names holding line breaks, quotes and formula-like text as strict RFC 4180 CSV that imports back the same', async () => {
    // Names as merchants type them: line breaks of every kind, quotes, separators, and texts a
    // spreadsheet program would run as a formula. (A cell's surrounding spaces, tabs and line
    // breaks are trimmed by an import, so the names start and end with a letter or a sign.)
    const names = [
      'Caneca\n(lava-louças)',
      'Bare\rreturn',
      'Windows\r\nline end',
      'Say "hi", then; go',
      '"Quoted"',
      '=não é fórmula',
      '=1+1',
      '+55 11 5555-0000',
      '-10% off',
      '@home',
      "'=already quoted",
      "'plain quote",
    ];
    const bulk = await e2e.api('POST', '/api/v1/products/bulk', {
      items: names.map((name, i) => ({ code: `odd-${i}`, name: { pt: name }, type: 'simple' })),
    });
    expect(bulk.status).toBe(200);
    const odd = (bulk.json.data as Json[]).map((r) => r._id as string);
    const created = await create({
      file_type: 'csv',
      filters: { _id_in: odd },
      headers: [
        { label: 'code', isAttribute: false },
        { label: '=Nome', value: 'name.pt', isAttribute: false },
      ],
    });
    expect(created.status).toBe(201);
    expect(created.json.csv_neutralize_formulas).toBe(true);
    const done = await final(created.json._id as string);
    expect(done.status).toBe('completed');
    const { res, bytes } = await download(done._id as string);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');

    // A strict RFC 4180 parser: a quote only around a whole field, every record two fields.
    const rows = parse(bytes, { bom: true, relax_quotes: false, relax_column_count: false }) as string[][];
    expect(rows[0]).toEqual(['code', "'=Nome"]);
    expect(rows).toHaveLength(1 + names.length);
    const written = new Map(rows.slice(1).map(([code, name]) => [code, name]));
    names.forEach((name, i) => expect(stripFormulaQuote(written.get(`odd-${i}`)!)).toBe(name));
    expect(written.get('odd-5')).toBe("'=não é fórmula");
    expect(written.get('odd-0')).toBe('Caneca\n(lava-louças)');

    // Names changed meanwhile; the file, imported back with a mapping, puts them back as they were.
    for (const _id of odd)
      expect((await e2e.api('PATCH', `/api/v1/products/${_id}`, { name: { pt: 'changed' } })).status).toBe(200);
    const form = new FormData();
    form.append('file', new Blob([bytes]), 'odd-names.csv');
    const uploaded = await fetch(`${base}/api/v1/imports`, { method: 'POST', headers: auth, body: form });
    const imp = (await uploaded.json()) as Json;
    expect(uploaded.status).toBe(201);
    // The header `code` maps itself; `=Nome` names no field, so it is mapped by hand.
    expect(imp).toMatchObject({
      status: 'mapped',
      mapped_headers: { A: 'code' },
      strip_formula_quote: true,
      headers: [
        { column: 'A', label: 'code' },
        { column: 'B', label: '=Nome' },
      ],
      rows_count: names.length,
    });
    const mapped = await e2e.api('PATCH', `/api/v1/imports/${imp._id}`, {
      mapped_headers: { A: 'code', B: 'name.pt' },
    });
    expect(mapped.status).toBe(200);
    const finished = await startedImport(imp._id as string);
    expect(finished).toMatchObject({ status: 'completed', commit_count: names.length, errors_count: 0 });
    for (const [i, _id] of odd.entries())
      expect(((await e2e.api('GET', `/api/v1/products/${_id}`)).json.name as Json).pt).toBe(names[i]);
  }, 120_000);
});
