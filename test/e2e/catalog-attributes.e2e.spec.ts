import { eventually, startE2E, type E2E } from './platform';

type Json = Record<string, unknown>;

// Attributes, their options and attribute groups through the whole platform, driven only over
// HTTP (the typed client generated from the OpenAPI document, and raw calls for errors).
describe('catalog attributes through the whole platform', () => {
  let e2e: E2E;

  beforeAll(async () => {
    e2e = await startE2E('e2eattrs');
  });

  afterAll(async () => {
    await e2e?.close();
  });

  it('keeps typed attributes with options in groups: create, refuse bad settings and changes of type, delete with the options', async () => {
    const group = await e2e.client.POST('/api/v1/attribute-groups', {
      body: { key: 'look', name: { pt: 'Aparência' } },
    });
    expect(group.response.status).toBe(201);
    const color = await e2e.client.POST('/api/v1/attributes', {
      body: {
        key: 'color',
        type: 'select',
        association: 'product_and_sku',
        protected_by_lgpd: false,
        groups: [{ _id: group.data!._id, required: true }],
      },
    });
    expect(color.response.status).toBe(201);
    expect(color.data).toMatchObject({
      key: 'color',
      type: 'select',
      groups: [{ _id: group.data!._id, required: true }],
    });
    const id = color.data!._id;

    const red = await e2e.client.POST('/api/v1/attributes/{id}/options', {
      params: { path: { id } },
      body: { value: 'red', label: { pt: 'Vermelho' } },
    });
    expect(red.response.status).toBe(201);
    expect(red.data).toMatchObject({ attribute_id: id, value: 'red' });

    const bad = await e2e.api('POST', '/api/v1/attributes', {
      key: 'weight',
      type: 'metric',
      association: 'product',
      protected_by_lgpd: false,
    });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({
      code: 400,
      kind: 'validation',
      name: 'ValidationError',
      details: [{ field: 'type_config.units' }],
    });
    const retype = await e2e.api('PATCH', `/api/v1/attributes/${id}`, { type: 'multiselect' }, { 'if-match': '"1"' });
    expect(retype.status).toBe(409);
    expect(retype.json.message).toContain('type');

    const listed = await e2e.api('GET', `/api/v1/attributes?group_ids=${group.data!._id}&expand=groups`);
    expect((listed.json.data as Json[]).map((a) => ((a.groups as Json[])[0].group as Json).key)).toEqual(['look']);

    expect((await e2e.api('DELETE', `/api/v1/attribute-groups/${group.data!._id}`)).status).toBe(409);
    expect((await e2e.api('DELETE', `/api/v1/attributes/${id}`)).status).toBe(204);
    expect((await e2e.api('GET', `/api/v1/attributes/${id}/options/${red.data!._id}`)).status).toBe(404);

    const types = async () =>
      (await e2e.stream.messages(`${e2e.stream.subjectPrefix}pim.catalog.>`)).map((m) => (m.data as Json).type);
    await eventually(async () => (await types()).includes('attribute_options.deleted'));
    expect(await types()).toEqual([
      'attribute_groups.created',
      'attributes.created',
      'attribute_options.created',
      'attributes.deleted',
      'attribute_options.deleted',
    ]);
  });

  it("needs each collection's scope", async () => {
    const reader = await e2e.newKey(['attributes:read']);
    const as = { authorization: `Bearer ${reader}` };
    expect((await e2e.api('GET', '/api/v1/attributes', undefined, as)).status).toBe(200);
    expect(
      (await e2e.api('POST', '/api/v1/attributes', { key: 'x', association: 'product', protected_by_lgpd: false }, as))
        .status,
    ).toBe(403);
    expect((await e2e.api('GET', '/api/v1/attribute-groups', undefined, as)).status).toBe(403);
  });
});
