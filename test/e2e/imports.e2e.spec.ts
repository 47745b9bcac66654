import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import iconv from 'iconv-lite';
import { readRows, type Cell, type SheetFormat } from '@pim/sheets';
import { EVERY_TYPE, GOOD_VALUES } from '@pim/testing';
import { eventually, startE2E, type E2E } from './platform';

type Json = Record<string, unknown>;

const UPLOAD_LIMIT = 2 * 1024 * 1024;
const FINAL = ['completed', 'completed_with_errors', 'failed', 'canceled'];

/** The columns of the sheets below: header label → mapped field. */
const COLUMNS: [string, string][] = [
  ['SKU', 'code'],
  ['Nome', 'name.pt'],
  ['Name', 'name.en'],
  ['Marca', 'brand'],
  ['Família', 'family'],
  ['Categorias', 'categories'],
  ['Tags', 'tags'],
  ['Ativo', 'enabled'],
  ...Object.keys(EVERY_TYPE).flatMap((key): [string, string][] =>
    key === 'a_textarea'
      ? [
          [`${key} pt`, `attributes.${key}.pt`],
          [`${key} en`, `attributes.${key}.en`],
        ]
      : [[key, `attributes.${key}`]],
  ),
];

/** What a good row's values are once stored, whatever the sheet's format (see textRow). */
const STORED_ATTRIBUTES = {
  ...GOOD_VALUES,
  a_datetime: '2024-01-31T12:30:00.000Z',
  a_multiselect: ['red', 'blue'],
};

/** Ten ways a row goes wrong: five the import's parsing refuses, five the catalog's rules refuse. */
const BAD: Record<string, string>[] = [
  { a_number: 'doze' },
  { a_boolean: 'talvez' },
  { Marca: 'nobody' },
  { a_select: 'verde' },
  { a_date: '31/02/2024' },
  { a_text: 'far too long' },
  { a_date: '2019-12-31' },
  { a_price: '10 EUR' },
  { a_email: 'nobody' },
  { SKU: '' },
];

/** A row as a spreadsheet user writes it: Brazilian numbers, yes/no words, labels for options. */
function textRow(i: number, prefix: string): Record<string, string> {
  return {
    SKU: `${prefix}-${i}`,
    Nome: `Caneca ${i} açúcar`,
    Name: `Mug ${i}`,
    Marca: 'acme',
    Família: 'mugs',
    Categorias: 'kitchen|gifts',
    Tags: 'summer, sale',
    Ativo: i % 2 === 0 ? 'sim' : 'não',
    a_text: 'abc',
    'a_textarea pt': 'Descrição',
    'a_textarea en': 'Description',
    a_number: '12',
    a_boolean: 'não',
    a_date: '31/01/2024',
    a_datetime: '2024-01-31 12:30',
    a_select: 'Vermelho',
    a_multiselect: 'red|Azul',
    a_price: '19,90 BRL',
    a_metric: '1,25 kg',
    a_url: 'https://example.com/p',
    a_email: 'ana@example.com',
    a_image: 'https://cdn.example.com/1.jpg',
    a_file: 'https://cdn.example.com/1.pdf',
  };
}

/** Rows 0..n-1, every hundredth one bad (10 in 1,000), as header label → text. */
function sheetRows(n: number, prefix: string): Record<string, string>[] {
  return Array.from({ length: n }, (_, i) => ({ ...textRow(i, prefix), ...(i % 100 === 7 ? BAD[(i / 100) | 0] : {}) }));
}

const badCodes = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => i)
    .filter((i) => i % 100 === 7)
    .map((i) => `${prefix}-${i}`);

/** A semicolon-separated Latin-1 CSV, as Excel in Portuguese saves it. */
function latin1Csv(rows: Record<string, string>[]): Buffer {
  const labels = COLUMNS.map(([label]) => label);
  const quote = (v: string) => (/[;"\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  const lines = [labels.join(';'), ...rows.map((r) => labels.map((l) => quote(r[l] ?? '')).join(';'))];
  return iconv.encode(lines.join('\r\n') + '\r\n', 'win1252');
}

/**
 * A workbook with a notes worksheet first and the products worksheet second, its headers on row 3
 * under a title, cells typed as a spreadsheet program keeps them (numbers, booleans, dates, a formula).
 */
async function workbook(rows: Record<string, string>[]): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  wb.addWorksheet('Read me').addRow(['Products for the spring catalogue']);
  const ws = wb.addWorksheet('Products');
  ws.getCell('A1').value = 'Spring catalogue';
  ws.getRow(3).values = COLUMNS.map(([label]) => label);
  rows.forEach((r, i) => {
    const typed: Record<string, unknown> = { ...r };
    if (r.a_number === '12') typed.a_number = { formula: '6*2', result: 12 };
    if (r.a_boolean === 'não') typed.a_boolean = false;
    if (r.a_date === '31/01/2024') typed.a_date = new Date(Date.UTC(2024, 0, 31));
    if (r.a_datetime === '2024-01-31 12:30') typed.a_datetime = new Date(Date.UTC(2024, 0, 31, 12, 30));
    ws.getRow(4 + i).values = COLUMNS.map(([label]) =>
      typed[label] === '' ? null : typed[label],
    ) as ExcelJS.CellValue[];
  });
  return Buffer.from(await wb.xlsx.writeBuffer());
}

/** The rows of a downloaded file. */
async function rowsOf(format: SheetFormat, bytes: Buffer): Promise<Cell[][]> {
  const out: Cell[][] = [];
  for await (const r of readRows({ format, open: async () => Readable.from([bytes]) }, undefined)) out.push(r.cells);
  return out;
}

// Imports through the whole platform, over HTTP only: upload (multipart) → io-jobs (file storage,
// sheet reading) → mapping → start → pg-boss worker → the catalog's bulk upsert → counts, error
// file, progress stream; templates; refusals; and a worker SIGKILLed in the middle of a file.
describe('imports through the whole platform', () => {
  let e2e: E2E;
  let base: string;
  let auth: Record<string, string>;

  const upload = async (name: string, bytes: Buffer, fields: Record<string, string> = {}) => {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append('file', new Blob([bytes]), name);
    const res = await fetch(`${base}/api/v1/imports`, { method: 'POST', headers: auth, body: form });
    return { status: res.status, json: (await res.json()) as Json };
  };
  const get = async (id: string) => (await e2e.api('GET', `/api/v1/imports/${id}`)).json;
  /** Polls the import until it is final, tolerating the moments its app is down (503). */
  const final = async (id: string, timeoutMs = 120_000): Promise<Json> => {
    let last: Json = {};
    await eventually(async () => {
      const r = await e2e.api('GET', `/api/v1/imports/${id}`);
      if (r.status === 200) last = r.json;
      return FINAL.includes(last.status as string);
    }, timeoutMs);
    return last;
  };
  const total = async (query: string) => (await e2e.api('GET', `/api/v1/products?limit=1&${query}`)).json.total;
  const product = async (code: string) =>
    ((await e2e.api('GET', `/api/v1/products?code=${encodeURIComponent(code)}`)).json.data as Json[])[0];
  const download = async (id: string) => {
    const res = await fetch(`${base}/api/v1/imports/${id}/errors`, { headers: auth });
    return { res, bytes: Buffer.from(await res.arrayBuffer()) };
  };

  beforeAll(async () => {
    e2e = await startE2E('e2eimports', {
      UPLOAD_MAX_BYTES: String(UPLOAD_LIMIT),
      IMPORT_HEARTBEAT_SECONDS: '10',
      IMPORT_SUPERVISE_SECONDS: '1',
    });
    base = e2e.platform.gatewayUrl.replace(/\/api\/v1$/, '');
    auth = { authorization: `Bearer ${e2e.adminKey}` };
    const attributes: Json[] = [];
    for (const [key, spec] of Object.entries(EVERY_TYPE)) {
      const r = await e2e.api('POST', '/api/v1/attributes', {
        key,
        name: { en: key },
        association: 'product',
        protected_by_lgpd: false,
        ...spec,
      });
      expect(r.status).toBe(201);
      attributes.push(r.json);
      if (spec.type === 'select' || spec.type === 'multiselect') {
        for (const [value, label] of [
          ['red', 'Vermelho'],
          ['blue', 'Azul'],
        ])
          expect(
            (await e2e.api('POST', `/api/v1/attributes/${r.json._id}/options`, { value, label: { pt: label } })).status,
          ).toBe(201);
      }
    }
    expect((await e2e.api('POST', '/api/v1/brands', { code: 'acme', name: { en: 'Acme' } })).status).toBe(201);
    const family = await e2e.api('POST', '/api/v1/families', {
      code: 'mugs',
      name: { en: 'Mugs' },
      attributes: attributes.map((a) => ({ _id: a._id, required: false })),
    });
    expect(family.status).toBe(201);
    const tree = await e2e.api('POST', '/api/v1/category-trees', { code: 'main', name: { en: 'Main' } });
    for (const code of ['kitchen', 'gifts'])
      expect(
        (
          await e2e.api('POST', '/api/v1/categories', {
            code,
            name: { en: code },
            category_tree_id: tree.json._id,
          })
        ).status,
      ).toBe(201);
  }, 180_000);

  afterAll(async () => {
    await e2e?.close();
  });

  /** Checks a finished import of 1,000 rows with the ten bad ones, its products and its error file. */
  async function checkOutcome(done: Json, prefix: string, format: SheetFormat): Promise<void> {
    expect(done).toMatchObject({
      status: 'completed_with_errors',
      rows_count: 1_000,
      proccess_count: 1_000,
      commit_count: 990,
      errors_count: 10,
    });
    expect(await total(`_search=${prefix}-`)).toBe(990);
    const stored = await product(`${prefix}-0`);
    expect(stored).toMatchObject({
      code: `${prefix}-0`,
      type: 'simple',
      name: { pt: 'Caneca 0 açúcar', en: 'Mug 0' },
      enabled: true,
      tags: ['summer', 'sale'],
      attributes: STORED_ATTRIBUTES,
    });
    expect(stored.categories).toHaveLength(2);
    expect((await product(`${prefix}-1`)).enabled).toBe(false);

    const { res, bytes } = await download(done._id as string);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain(`-errors.${format}`);
    const rows = await rowsOf(format, bytes);
    const header = rows[0];
    expect(header.at(-1)).toBe('Problems');
    expect(header.slice(0, 3)).toEqual(['SKU', 'Nome', 'Name']);
    const refused = rows.slice(1);
    expect(refused).toHaveLength(10);
    const codes = badCodes(1_000, prefix);
    // The row whose SKU is empty is named by its other cells.
    expect(refused.map((r) => r[0] ?? `${prefix}-907`)).toEqual(codes);
    for (const r of refused) expect(String(r.at(-1))).toMatch(/^[A-Z]+ \(.+\): .+/);
    const problems = refused.map((r) => String(r.at(-1)));
    expect(problems[0]).toContain('"doze" is not a number');
    expect(problems[2]).toContain("no brand has the code 'nobody'");
    expect(problems[5]).toMatch(/a_text\): must have at most 5 characters/);
    expect(problems[9]).toContain('every row needs a product code');
  }

  it('imports a Latin-1, semicolon CSV of 1,000 rows (10 bad): typed values, exact counts, an error file, live progress', async () => {
    const up = await upload('products.csv', latin1Csv(sheetRows(1_000, 'CSV')));
    expect(up.status).toBe(201);
    expect(up.json).toMatchObject({
      status: 'uploaded',
      file_name: 'products.csv',
      file_type: 'csv',
      worksheets: [{ id: '1', name: 'products' }],
      file_header_row: 1,
      columns_count: COLUMNS.length,
      rows_count: 1_000,
      created_by_name: expect.any(String),
    });
    expect((up.json.headers as Json[])[4]).toEqual({ column: 'E', label: 'Família' });
    const id = up.json._id as string;

    // Starting before mapping is a 409 naming both states; a bad mapping names each problem.
    const early = await e2e.api('POST', `/api/v1/imports/${id}/start`);
    expect(early.status).toBe(409);
    expect(early.json.message).toMatch(/uploaded.*queued/);
    const bad = await e2e.api('PATCH', `/api/v1/imports/${id}`, {
      mapped_headers: { A: 'name.pt', B: 'name.pt', C: 'colour', ZZ: 'tags', D: 'attributes.nothing' },
    });
    expect(bad.status).toBe(400);
    expect((bad.json.details as Json[]).map((d) => d.field)).toEqual(
      expect.arrayContaining([
        'mapped_headers.B',
        'mapped_headers.C',
        'mapped_headers.ZZ',
        'mapped_headers.D',
        'mapped_headers',
      ]),
    );

    const mapped_headers = Object.fromEntries(COLUMNS.map(([, target], i) => [String.fromCharCode(65 + i), target]));
    const mapped = await e2e.api('PATCH', `/api/v1/imports/${id}`, { mapped_headers });
    expect(mapped.status).toBe(200);
    expect(mapped.json.status).toBe('mapped');
    const started = await e2e.api('POST', `/api/v1/imports/${id}/start`);
    expect(started.status).toBe(200);
    expect(started.json.status).toBe('queued');

    // The progress stream shows the import as it changes and ends when it is final.
    const stream = await fetch(`${base}/api/v1/imports/${id}/progress`, { headers: auth });
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    const events = (await stream.text())
      .split('\n\n')
      .filter((block) => block.startsWith('event: import'))
      .map((block) => JSON.parse(block.split('\ndata: ')[1]) as Json);
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(events.at(-1)!.status).toBe('completed_with_errors');

    await checkOutcome(await get(id), 'CSV', 'csv');
    // Its life as events: created at upload, updated by the mapping and the start, completed at the end.
    const subject = (action: string) => `${e2e.stream.subjectPrefix}pim.io-jobs.imports.${action}`;
    await eventually(async () => (await e2e.stream.messages(subject('completed'))).length === 1);
    const mine = async (action: string) =>
      (await e2e.stream.messages(subject(action))).filter(
        (m) => (m.data as Json).data && ((m.data as Json).data as Json)._id === id,
      );
    expect(await mine('created')).toHaveLength(1);
    expect((await mine('updated')).length).toBeGreaterThanOrEqual(2);
    expect(((await mine('completed'))[0].data as Json).data).toMatchObject({
      status: 'completed_with_errors',
      errors_count: 10,
    });
    const cancel = await e2e.api('POST', `/api/v1/imports/${id}/cancel`);
    expect(cancel.status).toBe(409);
    expect(cancel.json.message).toMatch(/completed_with_errors.*canceled/);
  }, 180_000);

  it('imports an XLSX (its second worksheet, the product table, headers on row 3) through a saved template', async () => {
    const template = await e2e.api('POST', '/api/v1/import-templates', {
      name: 'Spring catalogue',
      mapped_headers: Object.fromEntries(COLUMNS),
    });
    expect(template.status).toBe(201);
    const up = await upload('spring.xlsx', await workbook(sheetRows(1_000, 'XLS')), {
      from_template_id: template.json._id as string,
    });
    expect(up.status).toBe(201);
    // The product table is read, not the instructions page before it: the template maps it at once.
    expect(up.json).toMatchObject({
      status: 'mapped',
      file_type: 'xlsx',
      worksheets: [
        { id: '1', name: 'Read me', header_row: 1, rows_count: 0 },
        { id: '2', name: 'Products', header_row: 3, rows_count: 1_000 },
      ],
      file_worksheet_id: '2',
      template: { id: template.json._id, name: 'Spring catalogue' },
    });
    const id = up.json._id as string;
    // Another worksheet can be chosen (nothing of the template fits it), and the product table again.
    const readMe = await e2e.api('PATCH', `/api/v1/imports/${id}`, { file_worksheet_id: '1' });
    expect(readMe.status).toBe(200);
    expect(readMe.json).toMatchObject({ status: 'uploaded', file_worksheet_name: 'Read me', rows_count: 0 });
    const chosen = await e2e.api('PATCH', `/api/v1/imports/${id}`, { file_worksheet_id: '2' });
    expect(chosen.status).toBe(200);
    expect(chosen.json).toMatchObject({
      status: 'mapped',
      file_worksheet_name: 'Products',
      file_header_row: 3,
      rows_count: 1_000,
      columns_count: COLUMNS.length,
    });
    expect(Object.keys(chosen.json.mapped_headers as Json)).toHaveLength(COLUMNS.length);
    expect((await e2e.api('POST', `/api/v1/imports/${id}/start`)).status).toBe(200);
    await checkOutcome(await final(id), 'XLS', 'xlsx');

    // The same template on a CSV upload maps it at once; the second run changes the stored products.
    const again = sheetRows(1_000, 'XLS').map((r) => ({ ...r, Name: `${r.Name} v2` }));
    const second = await upload('spring-v2.csv', latin1Csv(again), { from_template_id: template.json._id as string });
    expect(second.status).toBe(201);
    expect(second.json.status).toBe('mapped');
    expect((await e2e.api('POST', `/api/v1/imports/${second.json._id}/start`)).status).toBe(200);
    expect(await final(second.json._id as string)).toMatchObject({ commit_count: 990, errors_count: 10 });
    expect(await total('_search=XLS-')).toBe(990);
    expect((await product('XLS-0')).name).toEqual({ pt: 'Caneca 0 açúcar', en: 'Mug 0 v2' });
  }, 180_000);

  it('refuses what is not a spreadsheet (400), a file over the limit (413) and moves the state does not allow (409)', async () => {
    const png = await upload('photo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]));
    expect(png.status).toBe(400);
    expect(png.json).toMatchObject({ code: 400, kind: 'validation', title: 'Not a spreadsheet' });
    expect(png.json.message).toContain('PNG');

    const big = await upload('big.csv', Buffer.alloc(UPLOAD_LIMIT + 1_024, 'a,b\n'));
    expect(big.status).toBe(413);
    expect(big.json).toMatchObject({ code: 413, kind: 'payload_too_large' });
    // A body that declares more than the limit is refused before it is read.
    const declared = await upload('bigger.csv', Buffer.alloc(UPLOAD_LIMIT * 2, 'a,b\n'));
    expect(declared.status).toBe(413);
    expect(declared.json.message).toContain('upload limit');

    const noFile = await fetch(`${base}/api/v1/imports`, { method: 'POST', headers: auth, body: new FormData() });
    expect(noFile.status).toBe(400);
    const json = await fetch(`${base}/api/v1/imports`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(json.status).toBe(415);

    // A queued import can be canceled; a canceled one cannot start.
    const up = await upload('few.csv', Buffer.from('SKU,Nome\nFEW-1,Um\n'));
    const id = up.json._id as string;
    expect(
      (await e2e.api('PATCH', `/api/v1/imports/${id}`, { mapped_headers: { A: 'code', B: 'name.pt' } })).status,
    ).toBe(200);
    const canceled = await e2e.api('POST', `/api/v1/imports/${id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.json.status).toBe('canceled');
    const restart = await e2e.api('POST', `/api/v1/imports/${id}/start`);
    expect(restart.status).toBe(409);
    expect(restart.json.message).toMatch(/canceled.*queued/);
  }, 180_000);

  it('finishes a 20,000-row import whose worker is SIGKILLed three times (and the catalog once): every row once, counts exact', async () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => `CRASH-${i};Produto ${i};crash;mugs;${i % 7}`);
    const csv = Buffer.from(['SKU;Nome;Tags;Família;a_number', ...rows].join('\n'));
    const up = await upload('crash.csv', csv);
    expect(up.status).toBe(201);
    const id = up.json._id as string;
    const patched = await e2e.api('PATCH', `/api/v1/imports/${id}`, {
      mapped_headers: { A: 'code', B: 'name.pt', C: 'tags', D: 'family', E: 'attributes.a_number' },
    });
    expect(patched.status).toBe(200);
    expect((await e2e.api('POST', `/api/v1/imports/${id}/start`)).status).toBe(200);

    // io-jobs three times, and the catalog once in between (its bulk upsert fails; the job retries).
    const crashes: [number, string][] = [
      [3_000, 'io-jobs'],
      [7_000, 'catalog'],
      [11_000, 'io-jobs'],
      [15_000, 'io-jobs'],
    ];
    for (const [atLeast, app] of crashes) {
      let seen = 0;
      await eventually(async () => {
        const r = await e2e.api('GET', `/api/v1/imports/${id}`);
        if (r.status === 200) seen = r.json.proccess_count as number;
        return seen >= atLeast || FINAL.includes(r.json.status as string);
      }, 120_000);
      if (seen >= 20_000) break;
      e2e.platform.kill(app, 'SIGKILL');
      await e2e.platform.restart(app);
    }
    const done = await final(id, 180_000);
    expect(done).toMatchObject({
      status: 'completed',
      rows_count: 20_000,
      proccess_count: 20_000,
      commit_count: 20_000,
      errors_count: 0,
    });
    expect(await total('tags=crash')).toBe(20_000);
    // Each product was written once: a batch resent after a crash is answered from the catalog's ledger.
    expect(await total('tags=crash&version_gt=1')).toBe(0);
  }, 300_000);
});
