import { eventually, startE2E, type E2E } from './platform';

type Json = Record<string, unknown>;

const ANA = '6740a1b2c3d4e5f601234567';

// HTTP → gateway → gRPC → workflow app → Postgres schema → outbox: users groups, workflows and
// workflow approvals driven only over HTTP, as a user of the API would.
describe('workflow resources through the whole platform', () => {
  let e2e: E2E;

  beforeAll(async () => {
    e2e = await startE2E('e2eworkflow');
  });

  afterAll(async () => {
    await e2e?.close();
  });

  it('keeps users groups: CRUD, a unique name, search and filters, and the list envelope', async () => {
    const made = await e2e.api('POST', '/api/v1/users-groups', {
      source_id: 'sso',
      name: 'Approvers',
      description: 'Approve product changes',
      users: [{ id: ANA, name: 'Ana', roles: ['approver'] }],
    });
    expect(made.status).toBe(201);
    expect(made.headers.get('etag')).toBe('"1"');
    expect(made.json).toMatchObject({ name: 'Approvers', has_full_product_access: false, users: [{ id: ANA }] });
    const again = await e2e.api('POST', '/api/v1/users-groups', { source_id: 'sso', name: 'Approvers', users: [] });
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ code: 409, kind: 'conflict' });
    expect(again.json.message).toContain("already named 'Approvers'");
    await e2e.api('POST', '/api/v1/users-groups', {
      source_id: 'ldap',
      name: 'Everyone',
      users: [],
      has_full_product_access: true,
    });

    const list = await e2e.api('GET', '/api/v1/users-groups?limit=1&sort=name');
    expect(list.status).toBe(200);
    expect(Object.keys(list.json).sort()).toEqual(
      [
        'data',
        'filters',
        'limit',
        'next',
        'nextUrl',
        'page',
        'pages',
        'previous',
        'previousUrl',
        'skip',
        'sort',
        'total',
      ].sort(),
    );
    expect(list.json).toMatchObject({
      page: 1,
      limit: 1,
      pages: 2,
      total: 2,
      next: true,
      previous: false,
      previousUrl: false,
    });
    expect((list.json.data as Json[]).map((g) => g.name)).toEqual(['Approvers']);
    const full = await e2e.api('GET', '/api/v1/users-groups?has_full_product_access=true');
    expect((full.json.data as Json[]).map((g) => g.name)).toEqual(['Everyone']);
    const found = await e2e.api('GET', '/api/v1/users-groups?_search=product%20changes');
    expect(found.json.total).toBe(1);

    const id = made.json._id as string;
    const patched = await e2e.api('PATCH', `/api/v1/users-groups/${id}`, { description: null }, { 'if-match': '"1"' });
    expect(patched.status).toBe(200);
    expect(patched.json.description).toBeUndefined();
    expect((await e2e.api('DELETE', `/api/v1/users-groups/${id}`)).status).toBe(204);
    expect((await e2e.api('GET', `/api/v1/users-groups/${id}`)).status).toBe(404);
  });

  it('checks the users groups a catalog and an attribute group name against the workflow app', async () => {
    const group = await e2e.api('POST', '/api/v1/users-groups', { source_id: 'sso', name: 'Buyers', users: [] });
    const id = group.json._id as string;
    const missing = '6740a1b2c3d4e5f6012345ff';
    const catalog = await e2e.api('POST', '/api/v1/catalogs', { code: 'b2b', name: { en: 'B2B' }, user_groups: [id] });
    expect(catalog.status).toBe(201);
    const bad = await e2e.api('POST', '/api/v1/catalogs', { code: 'b2c', name: { en: 'B2C' }, user_groups: [missing] });
    expect(bad.status).toBe(400);
    expect(bad.json.details).toEqual([{ field: 'user_groups.0', message: `no live users group has _id '${missing}'` }]);
    const attributeGroup = await e2e.api('POST', '/api/v1/attribute-groups', {
      key: 'pricing',
      name: { en: 'Pricing' },
      users_groups: [{ _id: id, not_allowed_users: ['u1'] }],
    });
    expect(attributeGroup.status).toBe(201);
    const badGroup = await e2e.api('POST', '/api/v1/attribute-groups', {
      key: 'secret',
      name: { en: 'Secret' },
      users_groups: [{ _id: missing, not_allowed_users: [] }],
    });
    expect(badGroup.status).toBe(400);
    expect((badGroup.json.details as { field: string }[]).map((d) => d.field)).toEqual(['users_groups.0._id']);
  });

  it('keeps one default workflow, also under 20 racing creates, and refuses a bad status as an error object', async () => {
    const first = await e2e.api('POST', '/api/v1/workflows', { code: 'shop', name: 'Shop', enabled: true });
    const second = await e2e.api('POST', '/api/v1/workflows', {
      code: 'marketplace',
      name: 'Marketplace',
      enabled: true,
      steps: [
        {
          code: 'payment',
          name: 'Payment',
          status: [
            { code: 'pending', name: 'Pending', moves_to: ['paid'] },
            { code: 'paid', name: 'Paid', outcome: 'COMPLETED' },
          ],
        },
      ],
    });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.json.default).toBe(true);
    const status = ((second.json.steps as Json[])[0].status as Json[])[0];
    expect(status).toMatchObject({ code: 'pending', enabled: true, notify: false, outcome: '', moves_to: ['paid'] });
    expect(status._id).toMatch(/^[0-9a-f]{24}$/);
    const firstNow = await e2e.api('GET', `/api/v1/workflows/${first.json._id as string}`);
    expect(firstNow.json).toMatchObject({ default: false, version: 2 });

    const racing = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        e2e.api('POST', '/api/v1/workflows', { code: `race_${i}`, name: `Race ${i}`, enabled: true }),
      ),
    );
    expect(racing.map((r) => r.status)).toEqual(Array(20).fill(201));
    const defaults = await e2e.api('GET', '/api/v1/workflows?default=true');
    expect(defaults.json.total).toBe(1);

    const bad = await e2e.api('POST', '/api/v1/workflows', {
      code: 'bad',
      name: 'Bad',
      enabled: true,
      steps: [
        {
          code: 'a',
          name: 'A',
          status: [
            { code: 'x', name: 'X', moves_to: ['nowhere'] },
            { code: 'x', name: 'Again' },
          ],
        },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ code: 400, kind: 'validation' });
    expect((bad.json.details as { field: string }[]).map((d) => d.field).sort()).toEqual([
      'steps.0.status.0.moves_to.0',
      'steps.0.status.1.code',
    ]);
    expect((await e2e.api('GET', '/api/v1/workflows?code=bad')).json.total).toBe(0);
  });

  it('keeps workflow approvals: steps get ids, a repeated order or no approver is a 400 naming the step', async () => {
    const made = await e2e.api('POST', '/api/v1/workflow-approvals', {
      code: 'products',
      name: 'Product changes',
      enabled: true,
      steps: [
        { name: 'Marketing', order: 1, approvers: [ANA] },
        { name: 'Legal', order: 2, approvers: [ANA] },
      ],
    });
    expect(made.status).toBe(201);
    expect((made.json.steps as Json[]).every((s) => /^[0-9a-f]{24}$/.test(String(s.step_id)))).toBe(true);
    const bad = await e2e.api('POST', '/api/v1/workflow-approvals', {
      code: 'bad',
      name: 'Bad',
      enabled: true,
      steps: [
        { name: 'One', order: 1, approvers: [ANA] },
        { name: 'Two', order: 1, approvers: [] },
      ],
    });
    expect(bad.status).toBe(400);
    expect((bad.json.details as { field: string }[]).map((d) => d.field).sort()).toEqual([
      'steps.1.approvers',
      'steps.1.order',
    ]);
  });

  it('approves a product change step by step and applies it to the catalog once; a rejection applies nothing', async () => {
    const BIA = '6740a1b2c3d4e5f601234568';
    const CAIO = '6740a1b2c3d4e5f601234569';
    const scopes = ['product_approvals:read', 'product_approvals:write'];
    const [ana, bia, caio, nobody] = await Promise.all([
      e2e.newKey(scopes, { user_id: ANA, user_name: 'Ana' }),
      e2e.newKey(scopes, { user_id: BIA, user_name: 'Bia' }),
      e2e.newKey(scopes, { user_id: CAIO, user_name: 'Caio' }),
      e2e.newKey(scopes),
    ]);
    const by = (key: string) => ({ authorization: `Bearer ${key}` });
    // Keys bound to users see the products their users groups give them: these three see every product.
    const team = await e2e.api('POST', '/api/v1/users-groups', {
      source_id: 'sso',
      name: 'Kit team',
      users: [ANA, BIA, CAIO].map((id) => ({ id, name: id })),
      has_full_product_access: true,
    });
    expect(team.status).toBe(201);
    const product = async (code: string, type: string) =>
      (await e2e.api('POST', '/api/v1/products', { code, name: { en: code }, type })).json._id as string;
    const [kit, part1, part2, other] = await Promise.all([
      product('KIT-1', 'kit'),
      product('PART-1', 'simple'),
      product('PART-2', 'simple'),
      product('KIT-2', 'kit'),
    ]);
    const group = (await e2e.api('POST', '/api/v1/attribute-groups', { key: 'specs', name: { en: 'Specs' } })).json
      ._id as string;
    const flow = await e2e.api('POST', '/api/v1/workflow-approvals', {
      code: 'kit_changes',
      name: 'Kit changes',
      enabled: true,
      steps: [
        { name: 'Merchandising', order: 1, approvers: [ANA] },
        { name: 'Catalog owner', order: 2, approvers: [BIA] },
      ],
    });
    expect(flow.status).toBe(201);

    const proposal = {
      product_id: kit,
      kit_products: [
        { id: part1, quantity: 2 },
        { id: part2, quantity: 1 },
      ],
      attribute_groups: [group],
    };
    const created = await e2e.api('POST', '/api/v1/product-approvals', proposal, by(caio));
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      status: 'pending',
      workflow_approval_id: flow.json._id,
      current_step: { order: 1, name: 'Merchandising' },
      created_by_name: 'Caio',
    });
    const id = created.json._id as string;
    const approve = (key: string, body: object = {}) =>
      e2e.api('POST', `/api/v1/product-approvals/${id}/approve`, body, by(key));

    const anonymous = await approve(nobody);
    expect(anonymous.status).toBe(403);
    expect(anonymous.json).toMatchObject({ code: 403, kind: 'authorization' });
    const step1 = await approve(ana, { comment: 'Parts check out' });
    expect(step1.status).toBe(200);
    expect(step1.headers.get('etag')).toBe('"2"');
    expect(step1.json).toMatchObject({
      status: 'pending',
      current_step: { order: 2 },
      decisions: [
        { order: 1, decision: 'approved', comment: 'Parts check out', by: { user_id: ANA, user_name: 'Ana' } },
      ],
    });
    const stranger = await approve(caio);
    expect(stranger.status).toBe(403);
    expect(stranger.json.message).toContain(`User '${CAIO}' is not an approver of step 2`);
    const done = await approve(bia);
    expect(done.status).toBe(200);
    expect(done.json).toMatchObject({ status: 'approved', application: { status: 'applied' } });

    const kitNow = (await e2e.api('GET', `/api/v1/products/${kit}`)).json;
    expect(kitNow).toMatchObject({ attribute_groups: [group], product_approval: id });
    expect(kitNow.last_approval_at).toBe(done.json.decided_at);
    const relations = await e2e.api('GET', `/api/v1/product-relations?product_id=${kit}&type=kit_products`);
    expect((relations.json.data as Json[]).map((r) => r.kit_products)).toEqual([
      [
        { id: part1, quantity: 2 },
        { id: part2, quantity: 1 },
      ],
    ]);
    const again = await approve(bia);
    expect(again.status).toBe(409);
    expect(again.json.message).toContain('is approved, not pending');

    const second = await e2e.api('POST', '/api/v1/product-approvals', { ...proposal, product_id: other }, by(caio));
    const rejected = await e2e.api(
      'POST',
      `/api/v1/product-approvals/${second.json._id as string}/reject`,
      { comment: 'Not this season' },
      by(ana),
    );
    expect(rejected.status).toBe(200);
    expect(rejected.json).toMatchObject({ status: 'rejected', decisions: [{ decision: 'rejected' }] });
    expect((await e2e.api('GET', `/api/v1/products/${other}`)).json).toMatchObject({ version: 1 });
    expect((await e2e.api('GET', `/api/v1/product-relations?product_id=${other}`)).json.total).toBe(0);

    const subject = (action: string) => `${e2e.stream.subjectPrefix}pim.workflow.product_approvals.${action}`;
    await eventually(async () => (await e2e.stream.messages(subject('rejected'))).length === 1);
    const approved = await e2e.stream.messages(subject('approved'));
    expect(approved.map((m) => (m.data as { data: Json }).data._id)).toEqual([id]);
  });
});
