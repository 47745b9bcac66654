import { Readable } from 'node:stream';
import { joinListValues } from '@pim/query';
import { readRows, type Cell } from '@pim/sheets';
import { startReceiver, type TestReceiver } from '@pim/testing';
import { eventually, startE2E, type E2E } from './platform';

type Json = Record<string, unknown>;

/** Product codes real catalogs hold: a slash, a space, a hash, accents, CJK (and a decimal comma). */
const CODES = ['AB-12/3', 'CX 100', '#123', 'Açaí-500', '日本-1', 'FIO-2,5MM'];
/** Category codes holding what splits a spreadsheet list cell: a comma, a pipe. */
const CATEGORIES = ['Cozinha/Mesa', 'Presentes, Natal', 'Linha|Pro', '日本-cat'];
/** User ids as identity systems give them. */
const AUTH0 = 'auth0|5f1c2b3a4d5e6f7a8b9c0d1e';
const EMAIL = 'ana.souza@example.com';

const q = encodeURIComponent;
const nfd = (text: string) => text.normalize('NFD');

/** A file's rows as objects by header. */
async function csvObjects(bytes: Buffer): Promise<Record<string, Cell>[]> {
  const rows: Cell[][] = [];
  for await (const r of readRows({ format: 'csv', open: async () => Readable.from([bytes]) }, undefined))
    rows.push(r.cells);
  return rows.slice(1).map((r) => Object.fromEntries(rows[0].map((h, i) => [String(h), r[i] ?? null])));
}

/** A UTF-8 CSV with every field quoted, as a spreadsheet program saves one. */
const csv = (rows: string[][]): Buffer =>
  Buffer.from(rows.map((r) => r.map((v) => `"${v.replace(/"/g, '""')}"`).join(',')).join('\r\n') + '\r\n', 'utf8');

// Codes and user ids as customers' systems have them, through the whole platform over HTTP: codes
// with a slash, a space, a hash, accents, CJK, a comma and a pipe are created, found by `code=` and
// `code_in=`, upserted in bulk, imported from a CSV, exported to one and imported back unchanged,
// and carried unchanged by events and webhooks; user ids such as `auth0|…` and e-mails bind API
// keys, fill users groups, workflow steps and approval steps, and decide approvals.
describe('codes and user ids through the whole platform', () => {
  let e2e: E2E;
  let receiver: TestReceiver;
  let base: string;
  let auth: Record<string, string>;
  const categoryIds: Record<string, string> = {};
  const productIds: Record<string, string> = {};

  /** The codes of the products a list query finds, sorted (as JavaScript sorts, whatever the database's collation). */
  const codesOf = async (query: string) =>
    ((await e2e.api('GET', `/api/v1/products?limit=100&${query}`)).json.data as Json[]).map((p) => p.code).sort();
  const finalImport = async (id: string): Promise<Json> => {
    let last: Json = {};
    await eventually(async () => {
      last = (await e2e.api('GET', `/api/v1/imports/${id}`)).json;
      return ['completed', 'completed_with_errors', 'failed', 'canceled'].includes(last.status as string);
    }, 90_000);
    return last;
  };
  const upload = async (name: string, bytes: Buffer): Promise<{ status: number; json: Json }> => {
    const form = new FormData();
    form.append('file', new Blob([bytes]), name);
    const res = await fetch(`${base}/api/v1/imports`, { method: 'POST', headers: auth, body: form });
    return { status: res.status, json: (await res.json()) as Json };
  };
  /** The products events a webhook delivered, by code: their types. */
  const delivered = () => {
    const byCode = new Map<string, string[]>();
    for (const r of receiver.requests) {
      const body = JSON.parse(r.body) as { type: string; data: { code: string } };
      byCode.set(body.data.code, [...(byCode.get(body.data.code) ?? []), body.type]);
    }
    return byCode;
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    e2e = await startE2E('e2ecodes', { WEBHOOKS_ALLOWED_TARGETS: '127.0.0.0/8,::1/128' });
    base = e2e.platform.gatewayUrl.replace(/\/api\/v1$/, '');
    auth = { authorization: `Bearer ${e2e.adminKey}` };
    expect((await e2e.api('PUT', '/api/v1/webhooks', { collection: 'products', url: receiver.url })).status).toBe(200);
    const tree = await e2e.api('POST', '/api/v1/category-trees', { code: 'Árvore #1', name: { pt: 'Principal' } });
    expect(tree.json).toMatchObject({ code: 'Árvore #1' });
    for (const code of CATEGORIES) {
      const r = await e2e.api('POST', '/api/v1/categories', {
        code,
        name: { pt: code },
        category_tree_id: tree.json._id,
      });
      expect(r.status).toBe(201);
      expect(r.json.code).toBe(code);
      categoryIds[code] = r.json._id as string;
    }
  }, 300_000);

  afterAll(async () => {
    await e2e?.close();
    await receiver?.close();
  });

  it('creates records with such codes, stores them in NFC, refuses unprintable ones and finds them by code= and code_in=', async () => {
    const brand = await e2e.api('POST', '/api/v1/brands', { code: ' Marca Ç/1 ', name: { pt: 'Marca' } });
    expect(brand.status).toBe(201);
    expect(brand.json.code).toBe('Marca Ç/1');
    for (const [i, code] of CODES.entries()) {
      const r = await e2e.api('POST', '/api/v1/products', {
        code,
        name: { pt: `Produto ${i}` },
        type: 'simple',
        brand_id: brand.json._id,
        categories:
          i === 0 ? [categoryIds['Linha|Pro'], categoryIds['Presentes, Natal']] : [categoryIds['Cozinha/Mesa']],
      });
      expect(r.status).toBe(201);
      expect(r.json.code).toBe(code);
      productIds[code] = r.json._id as string;
    }
    // The same code spelled with decomposed accents is the same code: taken.
    const again = await e2e.api('POST', '/api/v1/products', {
      code: nfd('Açaí-500'),
      name: { pt: 'X' },
      type: 'simple',
    });
    expect(again.status).toBe(409);
    expect(again.json.message).toContain("'Açaí-500'");
    // Case is part of a code: another product.
    const lower = await e2e.api('POST', '/api/v1/products', { code: 'cx 100', name: { pt: 'Outro' }, type: 'simple' });
    expect(lower.status).toBe(201);
    expect((await e2e.api('DELETE', `/api/v1/products/${lower.json._id}`)).status).toBe(204);

    const bad = await e2e.api('POST', '/api/v1/products', { code: 'AB\t12', name: { pt: 'X' }, type: 'simple' });
    expect(bad.status).toBe(400);
    expect(bad.json.details).toEqual([
      {
        field: 'code',
        message:
          'holds a tab (U+0009) at position 3: a code is printable text, without control characters, invisible formatting characters or line breaks',
      },
    ]);
    expect(JSON.stringify(bad.json)).not.toContain('letters, digits');

    for (const code of CODES) expect(await codesOf(`code=${q(code)}`)).toEqual([code]);
    // An NFD spelling finds the NFC code; a raw (unencoded) space and slash too.
    expect(await codesOf(`code=${q(nfd('Açaí-500'))}`)).toEqual(['Açaí-500']);
    expect(await codesOf('code=AB-12/3')).toEqual(['AB-12/3']);
    expect(await codesOf(`code_in=${q(joinListValues(CODES))}`)).toEqual([...CODES].sort());
    // `\,` is a comma inside a code; without it the comma separates two codes.
    expect(await codesOf(`code_in=${q('FIO-2\\,5MM,#123')}`)).toEqual(['#123', 'FIO-2,5MM']);
    expect(await codesOf(`code_in=${q('FIO-2,5MM')}`)).toEqual([]);
    expect(await codesOf(`code_nin=${q(joinListValues(CODES.slice(1)))}&brand_id=${brand.json._id}`)).toEqual([
      'AB-12/3',
    ]);
    // The envelope's page links keep the codes as they were asked for.
    const page = await e2e.api('GET', `/api/v1/products?limit=1&sort=code&code_in=${q(joinListValues(CODES))}`);
    const next = await e2e.api('GET', (page.json.nextUrl as string).replace(/^.*\/api\/v1/, '/api/v1'));
    expect(next.json.total).toBe(CODES.length);
    expect((next.json.data as Json[])[0].code).not.toBe((page.json.data as Json[])[0].code);
    // Other resources with codes take them too.
    expect((await e2e.api('GET', `/api/v1/categories?code_in=${q(joinListValues(CATEGORIES))}`)).json.total).toBe(4);
    expect((await e2e.api('GET', `/api/v1/brands?code=${q(nfd('Marca Ç/1'))}`)).json.total).toBe(1);
  });

  it('upserts such codes in bulk, one result per item with its code as stored', async () => {
    const r = await e2e.api('POST', '/api/v1/products/bulk', {
      items: [
        { code: '日本-1', name: { pt: 'Produto 4 (novo nome)' }, type: 'simple' },
        { code: 'BULK 1/#A', name: { pt: 'Bulk' }, type: 'simple' },
        { code: nfd('Pão-2'), name: { pt: 'Pão' }, type: 'simple' },
        { code: 'BAD\n1', name: { pt: 'Bad' }, type: 'simple' },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.json.data).toMatchObject([
      { index: 0, code: '日本-1', status: 'updated', _id: productIds['日本-1'] },
      { index: 1, code: 'BULK 1/#A', status: 'created' },
      { index: 2, code: 'Pão-2', status: 'created' },
      { index: 3, status: 'failed', error: { code: 400 } },
    ]);
    expect(await codesOf(`code_in=${q(joinListValues(['BULK 1/#A', 'Pão-2']))}`)).toEqual(['BULK 1/#A', 'Pão-2']);
  });

  it('imports a CSV naming products and categories by such codes, escapes in list cells honoured', async () => {
    const up = await upload(
      'codigos.csv',
      csv([
        ['SKU', 'Nome', 'Categorias'],
        ['IMP 1/A', 'Importado 1', 'Cozinha/Mesa|Presentes, Natal|Linha\\|Pro'],
        ['#IMP-2', 'Importado 2', 'Linha\\|Pro'],
        ['Café-3', 'Importado 3', '日本-cat'],
        ['中文-4', 'Importado 4', 'Presentes\\, Natal'],
      ]),
    );
    expect(up.status).toBe(201);
    const id = up.json._id as string;
    const mapped = await e2e.api('PATCH', `/api/v1/imports/${id}`, {
      mapped_headers: { A: 'code', B: 'name.pt', C: 'categories' },
    });
    expect(mapped.status).toBe(200);
    expect((await e2e.api('POST', `/api/v1/imports/${id}/start`)).status).toBe(200);
    expect(await finalImport(id)).toMatchObject({ status: 'completed', commit_count: 4, errors_count: 0 });
    const imported = async (code: string) =>
      ((await e2e.api('GET', `/api/v1/products?code=${q(code)}`)).json.data as Json[])[0];
    expect(((await imported('IMP 1/A')).categories as string[]).sort()).toEqual(
      [categoryIds['Cozinha/Mesa'], categoryIds['Presentes, Natal'], categoryIds['Linha|Pro']].sort(),
    );
    expect((await imported('#IMP-2')).categories).toEqual([categoryIds['Linha|Pro']]);
    expect((await imported('Café-3')).categories).toEqual([categoryIds['日本-cat']]);
    expect((await imported('中文-4')).categories).toEqual([categoryIds['Presentes, Natal']]);
  });

  it('exports such codes to CSV (list cells escaped) and the file imports back changing nothing', async () => {
    const ids = CODES.map((c) => productIds[c]);
    const created = await e2e.api('POST', '/api/v1/exports', { file_type: 'csv', filters: { _id_in: ids } });
    expect(created.status).toBe(201);
    let done: Json = {};
    await eventually(async () => {
      done = (await e2e.api('GET', `/api/v1/exports/${created.json._id}`)).json;
      return ['completed', 'failed'].includes(done.status as string);
    }, 60_000);
    expect(done.status).toBe('completed');
    const res = await fetch(`${base}/api/v1/exports/${done._id}/download`, { headers: auth });
    const bytes = Buffer.from(await res.arrayBuffer());
    const rows = await csvObjects(bytes);
    const byCode = new Map(rows.map((r) => [r.code, r]));
    expect([...byCode.keys()].sort()).toEqual([...CODES].sort());
    expect(byCode.get('Açaí-500')!.brand).toBe('Marca Ç/1');
    // Two categories: `|` between them, the one holding a `|` escaped.
    const first = byCode.get('AB-12/3')!.categories as string;
    expect(first.split(/(?<!\\)\|/).sort()).toEqual(['Linha\\|Pro', 'Presentes, Natal']);
    expect(byCode.get('CX 100')!.categories).toBe('Cozinha/Mesa');

    const before = await Promise.all(ids.map(async (id) => (await e2e.api('GET', `/api/v1/products/${id}`)).json));
    const back = await upload('round-trip.csv', bytes);
    expect(back.status).toBe(201);
    expect(back.json.status).toBe('mapped');
    expect((await e2e.api('POST', `/api/v1/imports/${back.json._id}/start`)).status).toBe(200);
    expect(await finalImport(back.json._id as string)).toMatchObject({
      status: 'completed',
      commit_count: CODES.length,
      errors_count: 0,
    });
    const after = await Promise.all(ids.map(async (id) => (await e2e.api('GET', `/api/v1/products/${id}`)).json));
    expect(after).toEqual(before);
  });

  it('carries the codes unchanged in events and webhook deliveries', async () => {
    const expected = [...CODES, 'BULK 1/#A', 'Pão-2', 'IMP 1/A', '#IMP-2', 'Café-3', '中文-4'];
    await eventually(async () => expected.every((code) => delivered().get(code)?.includes('products.created')), 60_000);
    expect(delivered().get('日本-1')).toEqual(expect.arrayContaining(['products.created', 'products.updated']));
    const subject = `${e2e.stream.subjectPrefix}pim.catalog.products.created`;
    const streamed = (await e2e.stream.messages(subject)).map((m) => ((m.data as Json).data as Json).code);
    expect(streamed).toEqual(expect.arrayContaining(expected));
  });

  it('moves an order through workflow statuses named by such codes', async () => {
    const flow = await e2e.api('POST', '/api/v1/workflows', {
      code: 'Pedidos/Loja São Paulo',
      name: 'Pedidos',
      enabled: true,
      steps: [
        {
          code: 'Pagamento #1',
          name: 'Pagamento',
          users: [
            { id: AUTH0, name: 'Ana (Auth0)' },
            { id: EMAIL, name: 'Ana (e-mail)' },
          ],
          status: [
            { code: 'Aguardando pagamento', name: 'Aguardando', moves_to: ['Pago, ok'] },
            { code: 'Pago, ok', name: 'Pago' },
          ],
        },
      ],
    });
    expect(flow.status).toBe(201);
    expect((flow.json.steps as Json[])[0].users).toEqual([
      { id: AUTH0, name: 'Ana (Auth0)' },
      { id: EMAIL, name: 'Ana (e-mail)' },
    ]);
    const order = await e2e.api('POST', '/api/v1/orders', {
      code: 'PED-2026/0001 #7',
      external_code: 'web 1',
      channel: { code: 'web' },
      customer: { email: 'cliente@example.com' },
      items_count: 1,
      workflow_code: nfd('Pedidos/Loja São Paulo'),
    });
    expect(order.status).toBe(201);
    expect(order.json).toMatchObject({ code: 'PED-2026/0001 #7', status_code: 'Aguardando pagamento' });
    const moved = await e2e.api('POST', `/api/v1/orders/${order.json._id}/status`, { status_code: 'Pago, ok' });
    expect(moved.status).toBe(200);
    expect(moved.json).toMatchObject({ status_code: 'Pago, ok', step_code: 'Pagamento #1' });
    const found = await e2e.api('GET', `/api/v1/orders?status_code=${q('Pago, ok')}&code=${q('PED-2026/0001 #7')}`);
    expect(found.json.total).toBe(1);
  });

  it('binds API keys, users groups, workflow steps and approvals to user ids such as auth0|… and e-mails', async () => {
    const scopes = ['products:read', 'product_approvals:read', 'product_approvals:write'];
    const keyOf = async (user_id: string, user_name: string) => {
      const r = await e2e.api('POST', '/api/v1/api-keys', { name: `key of ${user_name}`, scopes, user_id, user_name });
      expect(r.status).toBe(201);
      return r.json;
    };
    const auth0 = await keyOf(AUTH0, 'Ana');
    expect(auth0.user_id).toBe(AUTH0);
    const email = await keyOf(` ${EMAIL} `, 'Bia');
    expect(email.user_id).toBe(EMAIL);
    const outsider = await keyOf('f47ac10b-58cc-4372-a567-0e02b3c479d3', 'Caio');
    const refused = await e2e.api('POST', '/api/v1/api-keys', { name: 'x', scopes, user_id: 'auth0|\n1' });
    expect(refused.status).toBe(400);
    expect(refused.json.details).toEqual([{ field: 'user_id', message: expect.stringContaining('a line feed') }]);
    const listed = await e2e.api('GET', `/api/v1/api-keys?user_id=${q(AUTH0)}`);
    expect((listed.json.data as Json[]).map((k) => k._id)).toEqual([auth0._id]);
    const by = (key: Json) => ({ authorization: `Bearer ${key.key as string}` });

    // A users group naming them; its name is one name however its accents are encoded.
    const team = await e2e.api('POST', '/api/v1/users-groups', {
      source_id: 'auth0',
      name: 'Gestão de catálogo',
      has_full_product_access: true,
      users: [
        { id: AUTH0, name: 'Ana', roles: ['approver'] },
        { id: EMAIL, name: 'Bia' },
      ],
    });
    expect(team.status).toBe(201);
    expect((team.json.users as Json[]).map((u) => u.id)).toEqual([AUTH0, EMAIL]);
    const twin = await e2e.api('POST', '/api/v1/users-groups', {
      source_id: 'auth0',
      name: nfd('Gestão de catálogo'),
      users: [],
    });
    expect(twin.status).toBe(409);
    expect((await e2e.api('GET', `/api/v1/users-groups?name=${q(nfd('Gestão de catálogo'))}`)).json.total).toBe(1);

    // The group's members see every product (the gateway asks their access by user id); a user in no group sees none.
    expect((await e2e.api('GET', '/api/v1/products?limit=1', undefined, by(auth0))).json.total).toBeGreaterThan(0);
    expect((await e2e.api('GET', '/api/v1/products?limit=1', undefined, by(email))).json.total).toBeGreaterThan(0);
    expect((await e2e.api('GET', '/api/v1/products?limit=1', undefined, by(outsider))).json.total).toBe(0);

    // An approval decided by the two of them, step by step, each by their key's user id.
    const group = await e2e.api('POST', '/api/v1/attribute-groups', {
      key: 'Especificações/Técnicas #1',
      name: { pt: 'Especificações' },
    });
    expect(group.status).toBe(201);
    expect(group.json.key).toBe('Especificações/Técnicas #1');
    const flow = await e2e.api('POST', '/api/v1/workflow-approvals', {
      code: 'Aprovação/Catálogo #1',
      name: 'Aprovação',
      enabled: true,
      steps: [
        { name: 'Ana', order: 1, approvers: [AUTH0] },
        { name: 'Bia', order: 2, approvers: [` ${EMAIL}`] },
      ],
    });
    expect(flow.status).toBe(201);
    expect((flow.json.steps as Json[]).map((s) => s.approvers)).toEqual([[AUTH0], [EMAIL]]);
    const product = productIds['#123'];
    const proposal = await e2e.api('POST', '/api/v1/product-approvals', {
      product_id: product,
      attribute_groups: [group.json._id],
    });
    expect(proposal.status).toBe(201);
    expect(proposal.json.workflow_approval_id).toBe(flow.json._id);
    const approve = (key: Json) =>
      e2e.api('POST', `/api/v1/product-approvals/${proposal.json._id}/approve`, {}, by(key));
    expect((await approve(email)).status).toBe(403);
    expect((await approve(outsider)).status).toBe(404);
    const step1 = await approve(auth0);
    expect(step1.status).toBe(200);
    expect(step1.json).toMatchObject({ status: 'pending', current_step: { order: 2 } });
    const step2 = await approve(email);
    expect(step2.status).toBe(200);
    expect(step2.json).toMatchObject({
      status: 'approved',
      decisions: [{ by: { user_id: AUTH0 } }, { by: { user_id: EMAIL } }],
    });
    await eventually(async () =>
      ((await e2e.api('GET', `/api/v1/products/${product}`)).json.attribute_groups as string[]).includes(
        group.json._id as string,
      ),
    );
  });
});
