import { catalogHarness, type CatalogHarness } from '../../testing/catalog.harness';

type Json = Record<string, unknown>;

// HTTP → the gateway's attribute routes → gRPC → the catalog app (its own process) → Postgres,
// outbox → JetStream. Only the API-key gate is stood in for.
describe('catalog attribute routes over HTTP', () => {
  let h: CatalogHarness;

  beforeAll(async () => {
    h = await catalogHarness();
  });

  afterAll(async () => {
    await h?.close();
  });

  it('serves attributes: 201 with ETag, 400 naming a bad type_config key, 409 on an immutable field, expand of links in one BatchGet each', async () => {
    const group = (
      await h.request('POST', '/api/v1/attribute-groups', { key: 'specs', name: { pt: 'Especificações' } })
    ).json;
    const tree = (await h.request('POST', '/api/v1/category-trees', { code: 'master', name: { en: 'Master' } })).json;
    const shoes = (
      await h.request('POST', '/api/v1/categories', {
        code: 'shoes',
        name: { en: 'Shoes' },
        category_tree_id: tree._id,
      })
    ).json;

    const body = {
      key: 'size',
      name: { pt: 'Tamanho' },
      type: 'number',
      type_config: { min: 30, max: 50, type: 'integer' },
      association: 'sku',
      protected_by_lgpd: false,
      groups: [{ _id: group._id, required: true }],
      categories: [{ _id: shoes._id }],
    };
    const created = await h.request('POST', '/api/v1/attributes', body, { 'x-test-user': 'Ana' });
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toBe('"1"');
    expect(created.headers.get('location')).toBe(`/api/v1/attributes/${created.json._id}`);
    expect(created.json).toMatchObject({
      ...body,
      categories: [{ _id: shoes._id, required: false }],
      unique: false,
      enabled: true,
      created_by_name: 'Ana',
    });
    expect(await h.request('GET', `/api/v1/attributes/${created.json._id}`)).toMatchObject({
      status: 200,
      json: created.json,
    });

    const bad = await h.request('POST', '/api/v1/attributes', {
      ...body,
      key: 'other',
      type_config: { min_length: 3, max_length: 1 },
      type: 'text',
    });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({
      kind: 'validation',
      message: 'type_config.max_length must be ≥ min_length (3)',
      details: [{ field: 'type_config.max_length' }],
    });
    const missing = await h.request('POST', '/api/v1/attributes', {
      ...body,
      key: 'other',
      groups: [{ _id: '6740a1b2c3d4e5f601234567' }],
    });
    expect(missing.status).toBe(400);
    expect(missing.json.details).toEqual([
      { field: 'groups.0._id', message: "no live attribute group has _id '6740a1b2c3d4e5f601234567'" },
    ]);

    const immutable = await h.request(
      'PATCH',
      `/api/v1/attributes/${created.json._id}`,
      { association: 'product' },
      { 'if-match': '"1"' },
    );
    expect(immutable.status).toBe(409);
    expect(immutable.json).toMatchObject({
      kind: 'conflict',
      details: [{ field: 'association', message: 'cannot change after creation (is "sku")' }],
    });
    const patched = await h.request(
      'PATCH',
      `/api/v1/attributes/${created.json._id}`,
      { type_config: { max: 48 } },
      { 'if-match': '"1"' },
    );
    expect(patched.status).toBe(200);
    expect(patched.json.type_config).toEqual({ min: 30, max: 48, type: 'integer' });

    const calls: string[] = [];
    for (const name of ['attributeGroups', 'categories'] as const) {
      const client = h.clients[name] as { batchGet: (req: { ids: string[]; handles: string[] }) => Promise<unknown> };
      const real = client.batchGet.bind(client);
      client.batchGet = (req) => {
        calls.push(name);
        return real(req);
      };
    }
    await h.request('POST', '/api/v1/attributes', {
      key: 'width',
      association: 'product',
      protected_by_lgpd: true,
      groups: [{ _id: group._id }],
    });
    const list = await h.request(
      'GET',
      `/api/v1/attributes?group_ids=${group._id}&expand=groups,categories&sort=key&_search=TAMANHO`,
    );
    expect(list.status).toBe(200);
    const [size] = list.json.data as Json[];
    expect((list.json.data as Json[]).map((a) => a.key)).toEqual(['size']);
    expect(size.groups).toEqual([
      { _id: group._id, required: true, group: expect.objectContaining({ _id: group._id, key: 'specs' }) },
    ]);
    expect(size.categories).toEqual([
      { _id: shoes._id, required: false, category: expect.objectContaining({ code: 'shoes' }) },
    ]);
    expect(calls.sort()).toEqual(['attributeGroups', 'categories']);
    expect((await h.request('GET', '/api/v1/attributes?group_ids=6740a1b2c3d4e5f601234567')).json.total).toBe(0);
    const noScope = await h.request('GET', '/api/v1/attributes?expand=groups', undefined, {
      'x-test-scopes': 'attributes:read',
    });
    expect(noScope.status).toBe(403);

    const groupInUse = await h.request('DELETE', `/api/v1/attribute-groups/${group._id}`);
    expect(groupInUse.status).toBe(409);
    expect(groupInUse.json.message).toBe("The attribute group 'specs' is still used by 2 live attributes");
  });

  it('serves the options of an attribute under /attributes/{id}/options, and only of select attributes', async () => {
    const color = (
      await h.request('POST', '/api/v1/attributes', {
        key: 'color',
        type: 'select',
        association: 'product',
        protected_by_lgpd: false,
      })
    ).json;
    const note = (
      await h.request('POST', '/api/v1/attributes', { key: 'note', association: 'product', protected_by_lgpd: false })
    ).json;
    const base = `/api/v1/attributes/${color._id}/options`;

    const red = await h.request('POST', base, { value: 'red', label: { pt: 'Vermelho' } });
    expect(red.status).toBe(201);
    expect(red.headers.get('location')).toBe(`${base}/${red.json._id}`);
    expect(red.json).toMatchObject({
      attribute_id: color._id,
      value: 'red',
      label: { pt: 'Vermelho' },
      sequence: 0,
      enabled: true,
      fields: [],
    });
    expect((await h.request('POST', base, { value: 'red', label: { en: 'Red' } })).status).toBe(409);
    const text = await h.request('POST', `/api/v1/attributes/${note._id}/options`, { value: 'x', label: { en: 'X' } });
    expect(text.status).toBe(400);
    expect(text.json.message).toBe(
      "Attribute 'note' is of type text; only select and multiselect attributes have options",
    );
    expect((await h.request('GET', `/api/v1/attributes/not-an-id/options`)).status).toBe(400);
    expect((await h.request('GET', `/api/v1/attributes/6740a1b2c3d4e5f601234567/options`)).status).toBe(404);
    expect((await h.request('GET', `/api/v1/attributes/${note._id}/options/${red.json._id}`)).status).toBe(400);

    await h.request('POST', base, { value: 'blue', label: { en: 'Blue' } });
    const list = await h.request('GET', `${base}?_search=vermelho`);
    expect(list.json).toMatchObject({ total: 1, data: [{ value: 'red' }] });
    const patched = await h.request(
      'PATCH',
      `${base}/${red.json._id}`,
      { label: { en: 'Red' } },
      { 'if-match': '"1"' },
    );
    expect(patched.json.label).toEqual({ pt: 'Vermelho', en: 'Red' });
    const writer = await h.request('DELETE', `${base}/${red.json._id}`, undefined, {
      'x-test-scopes': 'attributes:write',
    });
    expect(writer.status).toBe(403);
    expect((await h.request('DELETE', `${base}/${red.json._id}`, undefined, { 'if-match': '"2"' })).status).toBe(204);
    const gone = await h.request('GET', `${base}/${red.json._id}`);
    expect(gone.status).toBe(404);
    // Moved from the catalog's service test: the owner names the nested list, the gateway writes its path.
    expect(gone.json.solution).toContain(`/api/v1/attributes/${color._id}/options`);

    const subject = `${h.stream.subjectPrefix}pim.catalog.attribute_options.>`;
    let msgs = await h.stream.messages(subject);
    for (let i = 0; i < 100 && msgs.length < 4; i++) {
      await new Promise((r) => setTimeout(r, 50));
      msgs = await h.stream.messages(subject);
    }
    expect(msgs.map((m) => (m.data as Json).type)).toEqual([
      'attribute_options.created',
      'attribute_options.created',
      'attribute_options.updated',
      'attribute_options.deleted',
    ]);
  });

  it('describes the attribute routes in the OpenAPI document', () => {
    const paths = Object.keys(h.document.paths ?? {});
    expect(paths).toEqual(
      expect.arrayContaining([
        '/api/v1/attributes',
        '/api/v1/attributes/{id}',
        '/api/v1/attributes/{id}/options',
        '/api/v1/attributes/{id}/options/{optionId}',
        '/api/v1/attribute-groups/{id}',
      ]),
    );
    const schemas = Object.keys(h.document.components?.schemas ?? {});
    expect(schemas).toEqual(
      expect.arrayContaining([
        'Attribute',
        'AttributeInput',
        'AttributeTypeConfig',
        'AttributeOption',
        'AttributeGroup',
        'AttributeListItem',
      ]),
    );
    const list = (
      h.document.paths?.['/api/v1/attributes'] as { get: { parameters: { name: string; description?: string }[] } }
    ).get;
    expect(list.parameters.find((p) => p.name === 'group_ids')?.description).toBe(
      'Only attributes linked to the attribute group with this _id',
    );
  });
});
