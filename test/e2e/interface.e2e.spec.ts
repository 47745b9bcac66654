import { LIST_ENVELOPE_KEYS } from '@pim/query';
import { startReceiver, type TestReceiver } from '@pim/testing';
import { eventually, startE2E, type E2E } from './platform';

type Json = Record<string, unknown>;

const ANA = '6740a1b2c3d4e5f6000000a1';

// The interface exactly, over HTTP: what a field-by-field audit of the API found to differ, each
// point as an integrator meets it.
describe('the interface exactly, through the whole platform', () => {
  let e2e: E2E;
  let receiver: TestReceiver;
  let base: string;
  let anaKey: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    e2e = await startE2E('e2einterface', { WEBHOOKS_ALLOWED_TARGETS: '127.0.0.0/8,::1/128' });
    base = e2e.platform.gatewayUrl.replace(/\/api\/v1$/, '');
    // Ana sees every product, but not the attributes of the group that denies her.
    const group = await e2e.api('POST', '/api/v1/users-groups', {
      source_id: 'sso',
      name: 'everyone',
      users: [{ id: ANA, name: 'ana' }],
      has_full_product_access: true,
    });
    expect(group.status).toBe(201);
    const open = await e2e.api('POST', '/api/v1/attribute-groups', { key: 'open', name: { en: 'Open' } });
    const secret = await e2e.api('POST', '/api/v1/attribute-groups', {
      key: 'secret',
      name: { en: 'Secret' },
      users_groups: [{ _id: group.json._id, not_allowed_users: [ANA] }],
    });
    const attribute = (key: string, groupId: unknown, extra: Json = {}) =>
      e2e.api('POST', '/api/v1/attributes', {
        key,
        name: { en: key },
        type: 'text',
        association: 'product',
        protected_by_lgpd: false,
        groups: [{ _id: groupId, required: false }],
        ...extra,
      });
    for (const [key, g] of [
      ['origin', open.json._id],
      ['origin_in', open.json._id],
      ['size', open.json._id],
      ['size_ne', secret.json._id],
    ] as const)
      expect((await attribute(key, g)).status).toBe(201);
    expect((await attribute('ean', open.json._id, { unique: true })).status).toBe(201);
    const groups = [open.json._id, secret.json._id];
    for (const [code, attributes] of [
      ['p-1', { origin: 'BR', origin_in: 'AR', size: 'M', size_ne: 'S', ean: '111' }],
      ['p-2', { origin: 'AR', origin_in: 'BR', size: 'S', ean: '222' }],
    ] as const)
      expect(
        (
          await e2e.api('POST', '/api/v1/products', {
            code,
            name: { en: code },
            type: 'simple',
            attribute_groups: groups,
            attributes,
          })
        ).status,
      ).toBe(201);
    anaKey = await e2e.newKey(['products:read'], { user_id: ANA, user_name: 'ana' });
  });

  afterAll(async () => {
    await e2e?.close();
    await receiver?.close();
  });

  const codesOf = (r: { json: Json }) => ((r.json.data ?? []) as Json[]).map((p) => p.code).sort();

  it('reads an attribute key that ends like an operator as that key first, _eq as equality, and never by a hidden key', async () => {
    // `origin_in` is an attribute: its equality, not `origin` in (…).
    expect(codesOf(await e2e.api('GET', '/api/v1/products?attributes.origin_in=BR'))).toEqual(['p-2']);
    // Another operator on it, and the operator on `origin`, still read as operators.
    expect(codesOf(await e2e.api('GET', '/api/v1/products?attributes.origin_in_ne=BR'))).toEqual(['p-1']);
    expect(codesOf(await e2e.api('GET', '/api/v1/products?attributes.origin_eq=BR'))).toEqual(['p-1']);
    expect(codesOf(await e2e.api('GET', '/api/v1/products?attributes.origin_in_eq=AR'))).toEqual(['p-1']);
    // Plain fields take `_eq` too.
    expect(codesOf(await e2e.api('GET', '/api/v1/products?code_eq=p-2'))).toEqual(['p-2']);
    // `size_ne` is hidden from Ana: to her the key is `size` with _ne, never the hidden attribute.
    const asAna = (query: string) =>
      e2e.api('GET', `/api/v1/products?${query}`, undefined, { authorization: `Bearer ${anaKey}` });
    expect(codesOf(await asAna('attributes.size_ne=S'))).toEqual(['p-1']);
    expect(codesOf(await e2e.api('GET', '/api/v1/products?attributes.size_ne=S'))).toEqual(['p-1']);
    expect((await asAna('attributes.size_ne_eq=S')).status).toBe(403);
  });

  it('answers 409 for a unique value taken when it is the only problem, 400 when it comes with others', async () => {
    const list = await e2e.api('GET', '/api/v1/products?code=p-2');
    const p2 = (list.json.data as Json[])[0];
    const only = await e2e.api('PATCH', `/api/v1/products/${p2._id}`, { attributes: { ean: '111' } });
    expect(only.status).toBe(409);
    expect(only.json).toMatchObject({ kind: 'conflict', title: 'Unique value taken' });
    const more = await e2e.api('PATCH', `/api/v1/products/${p2._id}`, { attributes: { ean: '111', ghost: 'x' } });
    expect(more.status).toBe(400);
    expect((more.json.details as Json[]).map((d) => d.field).sort()).toEqual(['attributes.ean', 'attributes.ghost']);
  });

  it('reads a record by id with expand, and refuses a parameter it does not take', async () => {
    const brand = await e2e.api('POST', '/api/v1/brands', { code: 'acme', name: { en: 'Acme' } });
    const product = await e2e.api('POST', '/api/v1/products', {
      code: 'p-4',
      name: { en: 'p-4' },
      type: 'simple',
      brand_id: brand.json._id,
    });
    const expanded = await e2e.api('GET', `/api/v1/products/${product.json._id}?expand=brand`);
    expect(expanded.status).toBe(200);
    expect(expanded.json.brand).toMatchObject({ _id: brand.json._id, code: 'acme' });
    const unknown = await e2e.api('GET', `/api/v1/products/${product.json._id}?expand=nosuch&foo=bar`);
    expect(unknown.status).toBe(400);
    expect(unknown.json.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'foo', message: 'is not a parameter of this operation' }),
      ]),
    );
    expect((await e2e.api('GET', `/api/v1/brands/${brand.json._id}?foo=1`)).status).toBe(400);
  });

  it('answers the list envelope on /event-types and /collections, with _search said back and absolute page URLs', async () => {
    const types = await e2e.api('GET', '/api/v1/event-types?limit=2&_search=product');
    expect(types.status).toBe(200);
    expect(Object.keys(types.json)).toEqual(LIST_ENVELOPE_KEYS);
    expect(types.json).toMatchObject({ limit: 2, next: true, filters: { _search: 'product' } });
    expect(types.json.nextUrl).toBe(`${base}/api/v1/event-types?limit=2&_search=product&page=2`);
    const deleted = await e2e.api('GET', '/api/v1/event-types?type=products.deleted');
    expect((deleted.json.data as Json[])[0]).toMatchObject({ type: 'products.deleted', collection: 'products' });
    const collections = await e2e.api('GET', '/api/v1/collections?app=orders');
    expect(collections.json).toMatchObject({ total: 1, data: [{ name: 'orders', app: 'orders' }] });
    const brands = await e2e.api('GET', '/api/v1/brands?limit=1&_search=acm');
    expect(brands.json.filters).toEqual({ _search: 'acm' });
  });

  it('answers 405 with Allow for a method a path does not take', async () => {
    const r = await e2e.api('DELETE', '/api/v1/collections');
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, HEAD');
    expect(r.json).toMatchObject({ code: 405, kind: 'method_not_allowed', name: 'MethodNotAllowedError' });
    expect((await e2e.api('GET', '/api/v1/no-such-thing')).status).toBe(404);
  });

  it('takes an order’s own shapes: channel with _id, workflow by {_id} or {code}', async () => {
    const workflow = await e2e.api('POST', '/api/v1/workflows', {
      code: 'loja',
      name: 'Loja',
      enabled: true,
      default: false,
      steps: [{ name: 'Pick', code: 'pick', status: [{ code: 'new', name: 'New' }] }],
    });
    expect(workflow.json).toMatchObject({ code: 'loja' });
    const order = (over: Json) => ({
      external_code: 'E-1',
      customer: { name: 'Ana' },
      items_count: 1,
      ...over,
    });
    const byCode = await e2e.api(
      'POST',
      '/api/v1/orders',
      order({ code: 'O-1', channel: { _id: ANA, code: 'web' }, workflow: { code: 'loja' } }),
    );
    expect(byCode.status).toBe(201);
    expect(byCode.json).toMatchObject({
      channel: { id: ANA, code: 'web' },
      workflow_id: workflow.json._id,
      workflow: { _id: workflow.json._id, code: 'loja' },
    });
    const byId = await e2e.api(
      'POST',
      '/api/v1/orders',
      order({ code: 'O-2', channel: { code: 'web' }, workflow: { _id: workflow.json._id } }),
    );
    expect(byId.status).toBe(201);
    expect(byId.json.workflow_code).toBe('loja');
  });

  it('says in a deleted event when and by whom, and gives every delivery a schema_version', async () => {
    expect((await e2e.api('PUT', '/api/v1/webhooks', { collection: 'brands', url: `${receiver.url}` })).status).toBe(
      200,
    );
    const brand = await e2e.api('POST', '/api/v1/brands', { code: 'gone', name: { en: 'Gone' } });
    expect((await e2e.api('DELETE', `/api/v1/brands/${brand.json._id}`)).status).toBe(204);
    let deleted: Json | undefined;
    await eventually(async () => {
      deleted = receiver.requests
        .map((r) => JSON.parse(r.body) as Json)
        .find((b) => b.type === 'brands.deleted' && (b.data as Json)._id === brand.json._id);
      return deleted !== undefined;
    }, 30_000);
    expect(deleted).toMatchObject({ schema_version: 1, data: { deleted_by: 'admin' } });
    expect((deleted!.data as Json).deleted_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const created = receiver.requests.map((r) => JSON.parse(r.body) as Json).find((b) => b.type === 'brands.created');
    expect(created).toMatchObject({ schema_version: 1 });
  });

  it('finds an import by its file name through _search', async () => {
    const form = new FormData();
    form.append('file', new Blob(['code,name.en\nx-1,X\n']), 'catalogo-verão.csv');
    const up = await fetch(`${base}/api/v1/imports`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${e2e.adminKey}` },
      body: form,
    });
    expect(up.status).toBe(201);
    const found = await e2e.api('GET', `/api/v1/imports?_search=${encodeURIComponent('catalogo-verão.csv')}`);
    expect((found.json.data as Json[]).map((i) => i.file_name)).toEqual(['catalogo-verão.csv']);
  });

  it('names the author of every import and export: the user, else the user id, else the key itself', async () => {
    const integration = e2e.clientWith(await e2e.newKey(['exports:write', 'products:read']));
    const byKey = await integration.POST('/api/v1/exports', { body: { file_type: 'csv' } });
    expect(byKey.data?.created_by_name).toBe('test exports:write products:read (API key)');
    const anonymous = e2e.clientWith(await e2e.newKey(['exports:write', 'products:read'], { user_id: 'auth0|77' }));
    expect((await anonymous.POST('/api/v1/exports', { body: { file_type: 'csv' } })).data?.created_by_name).toBe(
      'auth0|77',
    );
    const listed = await e2e.api('GET', '/api/v1/imports?limit=100');
    for (const i of listed.json.data as Json[]) expect(typeof i.created_by_name).toBe('string');
  });
});
