import { Readable } from 'node:stream';
import { readRows, type Cell } from '@pim/sheets';
import { startAppProcess, freePort, type AppProcess } from '@pim/testing';
import { eventually, startE2E, type E2E } from './platform';

type Json = Record<string, unknown>;

// Who sees which products, through the whole platform over HTTP (docs/decisions/access.md): a
// census of 3 users × 3 users groups × 3 catalogs × products in zero, one or two catalogs —
// for each user GET, list with totals, search, expand, export and bulk match the rule exactly;
// attribute-group denial; and a membership change seen on the next request by a second gateway.
describe('access by users groups through the whole platform', () => {
  let e2e: E2E;
  let second: AppProcess;
  let secondBase: string;

  const USERS = {
    ana: '6740a1b2c3d4e5f6000000a1',
    bruno: '6740a1b2c3d4e5f6000000b2',
    carla: '6740a1b2c3d4e5f6000000c3',
  };
  type User = keyof typeof USERS;
  const keys = {} as Record<User, string>;
  const groups = {} as Record<'g1' | 'g2' | 'g3', string>;
  const catalogs = {} as Record<'c1' | 'c2' | 'c3', string>;
  /** Product code → the catalogs it is in (an entry may carry its own user_groups). */
  const placements: Record<string, { catalog: keyof typeof catalogs; user_groups?: (keyof typeof groups)[] }[]> = {
    none: [],
    c1: [{ catalog: 'c1' }],
    c2: [{ catalog: 'c2' }],
    c3: [{ catalog: 'c3' }],
    c1_c2: [{ catalog: 'c1' }, { catalog: 'c2' }],
    c1_c3: [{ catalog: 'c1' }, { catalog: 'c3' }],
    c2_c3: [{ catalog: 'c2' }, { catalog: 'c3' }],
    c3_for_g2: [{ catalog: 'c3', user_groups: ['g2'] }],
  };
  const ids: Record<string, string> = {};
  /** Group membership now: G1 = Ana and Bruno, G2 = Bruno, G3 = Carla (every product). */
  const members: Record<keyof typeof groups, User[]> = { g1: ['ana', 'bruno'], g2: ['bruno'], g3: ['carla'] };
  const catalogGroups: Record<keyof typeof catalogs, (keyof typeof groups)[]> = { c1: ['g1'], c2: ['g2'], c3: [] };

  /** The rule, written independently of the code: which product codes a user sees now. */
  const expected = (user: User): string[] => {
    const mine = (Object.keys(members) as (keyof typeof groups)[]).filter((g) => members[g].includes(user));
    if (mine.includes('g3')) return Object.keys(placements).sort();
    return Object.entries(placements)
      .filter(([, entries]) =>
        entries.some(
          (e) =>
            catalogGroups[e.catalog].some((g) => mine.includes(g)) ||
            (e.user_groups ?? []).some((g) => mine.includes(g)),
        ),
      )
      .map(([code]) => code)
      .sort();
  };

  const as = (user: User, method: string, path: string, body?: unknown, at?: string) =>
    at
      ? fetch(`${at}${path}`, {
          method,
          headers: { authorization: `Bearer ${keys[user]}`, ...(body ? { 'content-type': 'application/json' } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        }).then(async (r) => ({ status: r.status, json: (await r.json()) as Json }))
      : e2e.api(method, path, body, { authorization: `Bearer ${keys[user]}` });
  const codesOf = (data: unknown) => (data as { code: string }[]).map((p) => p.code).sort();
  const census = Object.keys(placements);

  beforeAll(async () => {
    e2e = await startE2E('e2eaccess', { EXPORT_ATTEMPTS: '1', PUBLISHER_ALLOWED_TARGETS: '127.0.0.0/8' });
    const p = e2e.platform.ports;
    const port = await freePort();
    second = await startAppProcess(
      'gateway',
      e2e.platform.databaseUrl,
      {
        PORT: String(port),
        PIM_BOOTSTRAP_API_KEY: e2e.adminKey,
        ...Object.fromEntries(
          ['catalog', 'webhooks', 'workflow', 'orders', 'io-jobs', 'publisher'].map((app) => [
            `${app.toUpperCase().replace(/-/g, '_')}_GRPC_URL`,
            `127.0.0.1:${p[app]}`,
          ]),
        ),
      },
      { port, migrate: false },
    );
    secondBase = `http://127.0.0.1:${port}`;

    for (const g of Object.keys(members) as (keyof typeof groups)[]) {
      const r = await e2e.api('POST', '/api/v1/users-groups', {
        source_id: 'sso',
        name: g,
        users: members[g].map((u) => ({ id: USERS[u], name: u })),
        has_full_product_access: g === 'g3',
      });
      expect(r.status).toBe(201);
      groups[g] = r.json._id as string;
    }
    for (const c of Object.keys(catalogGroups) as (keyof typeof catalogs)[]) {
      const r = await e2e.api('POST', '/api/v1/catalogs', {
        code: c,
        name: { en: c },
        user_groups: catalogGroups[c].map((g) => groups[g]),
      });
      expect(r.status).toBe(201);
      catalogs[c] = r.json._id as string;
    }
    const scopes = ['products:write', 'exports:write', 'product_approvals:write', 'publications:write'];
    for (const u of Object.keys(USERS) as User[])
      keys[u] = await e2e.newKey(scopes, { user_id: USERS[u], user_name: u });

    for (const [code, entries] of Object.entries(placements)) {
      const r = await e2e.api('POST', '/api/v1/products', {
        code,
        type: 'simple',
        name: { en: `Census lamp ${code}` },
        catalogs: entries.map((e) => ({
          _id: catalogs[e.catalog],
          user_groups: (e.user_groups ?? []).map((g) => groups[g]),
        })),
      });
      expect(r.status).toBe(201);
      ids[code] = r.json._id as string;
    }
  }, 180_000);

  afterAll(async () => {
    await second?.stop();
    await e2e?.close();
  });

  it('shows each user exactly the products the rule gives: GET, list totals and pages, search, expand', async () => {
    expect(expected('ana')).toEqual(['c1', 'c1_c2', 'c1_c3']);
    expect(expected('bruno')).toEqual(['c1', 'c1_c2', 'c1_c3', 'c2', 'c2_c3', 'c3_for_g2']);
    for (const user of Object.keys(USERS) as User[]) {
      const sees = expected(user);
      for (const code of census) {
        const r = await as(user, 'GET', `/api/v1/products/${ids[code]}`);
        expect([user, code, r.status]).toEqual([user, code, sees.includes(code) ? 200 : 404]);
        if (r.status === 404) expect(r.json).toMatchObject({ code: 404, kind: 'not_found' });
      }
      const page = await as(user, 'GET', '/api/v1/products?limit=2&sort=code');
      expect([user, page.json.total, page.json.pages]).toEqual([user, sees.length, Math.ceil(sees.length / 2)]);
      const all = await as(user, 'GET', '/api/v1/products?limit=100');
      expect([user, codesOf(all.json.data)]).toEqual([user, sees]);
      const search = await as(user, 'GET', '/api/v1/products?_search=lamp&limit=100');
      expect([user, search.json.total, codesOf(search.json.data)]).toEqual([user, sees.length, sees]);
      const filtered = await as(user, 'GET', `/api/v1/products?catalog_id=${catalogs.c3}&limit=100`);
      expect([user, codesOf(filtered.json.data)]).toEqual([
        user,
        sees.filter((c) => placements[c].some((e) => e.catalog === 'c3')),
      ]);
    }
  });

  it('expands a related product only for a user who sees it', async () => {
    const child = await e2e.api('POST', '/api/v1/products', {
      code: 'c1_variation_of_c2',
      type: 'variation',
      name: { en: 'Variation' },
      product_id: ids.c2,
      catalogs: [{ _id: catalogs.c1, user_groups: [] }],
    });
    expect(child.status).toBe(201);
    const expanded = async (user: User) =>
      ((await as(user, 'GET', `/api/v1/products?code=c1_variation_of_c2&expand=product`)).json.data as Json[])[0];
    expect((await expanded('ana')).product).toBeNull();
    expect((await expanded('bruno')).product).toMatchObject({ _id: ids.c2, code: 'c2' });
    await e2e.api('DELETE', `/api/v1/products/${child.json._id as string}`);
  });

  it('exports as its creator: each user’s file holds the products they see', async () => {
    const exportOf = {} as Record<User, string>;
    for (const user of Object.keys(USERS) as User[]) {
      const made = await as(user, 'POST', '/api/v1/exports', { file_type: 'csv', report_type: 'general' });
      expect(made.status).toBe(201);
      exportOf[user] = made.json._id as string;
      let done: Json = {};
      await eventually(async () => {
        done = (await as(user, 'GET', `/api/v1/exports/${made.json._id as string}`)).json;
        return ['completed', 'failed'].includes(done.status as string);
      }, 60_000);
      expect(done.status).toBe('completed');
      const res = await fetch(`${e2e.platform.gatewayUrl}/exports/${made.json._id as string}/download`, {
        headers: { authorization: `Bearer ${keys[user]}` },
      });
      const rows: Cell[][] = [];
      const bytes = Buffer.from(await res.arrayBuffer());
      for await (const r of readRows({ format: 'csv', open: async () => Readable.from([bytes]) }, undefined))
        rows.push(r.cells);
      const at = rows[0].indexOf('code');
      expect([
        user,
        rows
          .slice(1)
          .map((r) => String(r[at]))
          .sort(),
      ]).toEqual([user, expected(user)]);
    }

    // A user whose groups do not see every product sees only the exports they created: the others
    // are left out of the list and its total, and are a 404 as for no export; Carla (every product)
    // and an admin key see them all.
    const download = (user: User, id: string) =>
      fetch(`${e2e.platform.gatewayUrl}/exports/${id}/download`, {
        headers: { authorization: `Bearer ${keys[user]}` },
      });
    for (const user of ['ana', 'bruno'] as const) {
      const list = await as(user, 'GET', '/api/v1/exports?limit=100');
      expect([user, list.json.total, (list.json.data as Json[]).map((e) => e._id)]).toEqual([
        user,
        1,
        [exportOf[user]],
      ]);
      for (const other of (Object.keys(USERS) as User[]).filter((u) => u !== user)) {
        const read = await as(user, 'GET', `/api/v1/exports/${exportOf[other]}`);
        expect([user, other, read.status, read.json.kind]).toEqual([user, other, 404, 'not_found']);
        const res = await download(user, exportOf[other]);
        await res.arrayBuffer();
        expect([user, other, res.status]).toEqual([user, other, 404]);
        expect((await as(user, 'DELETE', `/api/v1/exports/${exportOf[other]}`)).status).toBe(404);
      }
    }
    for (const list of [
      await as('carla', 'GET', '/api/v1/exports?limit=100'),
      await e2e.api('GET', '/api/v1/exports?limit=100'),
    ])
      expect((list.json.data as Json[]).map((e) => e._id)).toEqual(expect.arrayContaining(Object.values(exportOf)));
  });

  it('bulk upserts refuse, per item, the products a user does not see', async () => {
    for (const user of Object.keys(USERS) as User[]) {
      const sees = expected(user);
      // Each item keeps the product where it is: only the tags change.
      const items = census.map((code) => ({
        code,
        type: 'simple',
        name: { en: `Census lamp ${code}` },
        tags: [user],
        catalogs: placements[code].map((e) => ({
          _id: catalogs[e.catalog],
          user_groups: (e.user_groups ?? []).map((g) => groups[g]),
        })),
      }));
      const r = await as(user, 'POST', '/api/v1/products/bulk', { items });
      expect(r.status).toBe(200);
      const outcome = (r.json.data as { code: string; status: string; error?: { code: number } }[]).map((x) => [
        x.code,
        x.status === 'failed' ? x.error?.code : 'written',
      ]);
      expect([user, outcome]).toEqual([user, census.map((code) => [code, sees.includes(code) ? 'written' : 409])]);
    }
    const tags = await e2e.api('GET', `/api/v1/products/${ids.c2}`);
    expect(tags.json.tags).toEqual(['carla']); // Ana's item for c2 was refused; Bruno's and then Carla's wrote
  });

  it('refuses product approvals of a product the user does not see, and hides those of others: lists filtered, the rest a 404', async () => {
    const flow = await e2e.api('POST', '/api/v1/workflow-approvals', {
      code: 'census',
      name: 'Census',
      enabled: true,
      steps: [{ name: 'Review', order: 1, approvers: [USERS.carla] }],
    });
    expect(flow.status).toBe(201);
    const specs = await e2e.api('POST', '/api/v1/attribute-groups', { key: 'approval_specs', name: { en: 'Specs' } });
    const proposal = (product_id: string) => ({ product_id, attribute_groups: [specs.json._id] });
    const allowed = await as('ana', 'POST', '/api/v1/product-approvals', proposal(ids.c1));
    expect([allowed.status, allowed.json.message]).toEqual([201, undefined]);
    const refused = await as('ana', 'POST', '/api/v1/product-approvals', proposal(ids.c2));
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expect(JSON.stringify(refused.json)).toContain(ids.c2);

    const theirs = await e2e.api('POST', '/api/v1/product-approvals', proposal(ids.c2));
    expect(theirs.status).toBe(201);
    const path = `/api/v1/product-approvals/${theirs.json._id as string}`;
    const listed = await as('ana', 'GET', '/api/v1/product-approvals?limit=100');
    expect([listed.json.total, (listed.json.data as Json[]).map((a) => a.product_id)]).toEqual([1, [ids.c1]]);
    // Carla decides every step, yet does not see it: a 404, not the 403 of a user who is no approver.
    for (const [user, method, at] of [
      ['ana', 'GET', path],
      ['ana', 'PATCH', path],
      ['ana', 'DELETE', path],
      ['ana', 'POST', `${path}/approve`],
      ['ana', 'POST', `${path}/reject`],
    ] as const) {
      const r = await as(user, method, at, method === 'POST' || method === 'PATCH' ? {} : undefined);
      expect([method, at, r.status, r.json.kind]).toEqual([method, at, 404, 'not_found']);
    }
    expect((await as('carla', 'GET', '/api/v1/product-approvals?limit=100')).json.total).toBe(2);
    expect((await e2e.api('GET', path)).json).toMatchObject({ version: 1, status: 'pending' });
  });

  it('refuses publications of a product the user does not see; a bulk publication publishes what its creator sees', async () => {
    const channel = await e2e.api('POST', '/api/v1/channels', {
      code: 'census_shop',
      name: 'Census shop',
      // Nothing listens there: sending fails and is retried later, which this test does not wait for.
      endpoint: { url: 'http://127.0.0.1:9/listings', timeout_ms: 1_000 },
    });
    expect(channel.status).toBe(201);
    const publish = (user: User, code: string) =>
      as(user, 'POST', '/api/v1/publications', { product_id: ids[code], channel_id: channel.json._id });
    expect((await publish('ana', 'c1')).status).toBe(201);
    const refused = await publish('ana', 'c2');
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expect(JSON.stringify(refused.json)).toContain(ids.c2);
    const theirs = await e2e.api('POST', '/api/v1/publications', { product_id: ids.c2, channel_id: channel.json._id });
    expect(theirs.status).toBe(201);
    const path = `/api/v1/publications/${theirs.json._id as string}`;
    expect((await as('ana', 'GET', `/api/v1/publications?product_id=${ids.c2}`)).json.total).toBe(0);
    for (const [method, at] of [
      ['GET', path],
      ['POST', `${path}/retry`],
      ['DELETE', path],
    ] as const) {
      const r = await as('ana', method, at);
      expect([method, at, r.status, r.json.kind]).toEqual([method, at, 404, 'not_found']);
    }
    expect((await as('bruno', 'GET', path)).status).toBe(200);

    const bulk = await as('ana', 'POST', '/api/v1/publications/bulk', {
      channel_id: channel.json._id,
      filters: { _search: 'lamp' },
    });
    expect(bulk.status).toBe(202);
    let batch: Json = {};
    await eventually(async () => {
      batch = (await e2e.api('GET', `/api/v1/publication-batches/${bulk.json._id as string}`)).json;
      return batch.status === 'completed';
    }, 30_000);
    expect(batch).toMatchObject({ products_count: expected('ana').length, publications_count: expected('ana').length });
    const made = await e2e.api('GET', `/api/v1/publications?batch_id=${bulk.json._id as string}&limit=100`);
    expect(
      (made.json.data as { product_id: string }[])
        .map((p) => Object.keys(ids).find((code) => ids[code] === p.product_id))
        .sort(),
    ).toEqual(expected('ana'));
    const anaSees = await as('ana', 'GET', '/api/v1/publications?limit=100');
    expect([...new Set((anaSees.json.data as { product_id: string }[]).map((p) => p.product_id))].sort()).toEqual(
      expected('ana')
        .map((code) => ids[code])
        .sort(),
    );
  });

  it('hides and refuses the attributes of a group that lists the user as not allowed', async () => {
    const hidden = await e2e.api('POST', '/api/v1/attribute-groups', {
      key: 'costs',
      name: { en: 'Costs' },
      users_groups: [{ _id: groups.g1, not_allowed_users: [USERS.ana] }],
    });
    expect(hidden.status).toBe(201);
    const attr = await e2e.api('POST', '/api/v1/attributes', {
      key: 'unit_cost',
      name: { en: 'Unit cost' },
      type: 'number',
      association: 'product',
      protected_by_lgpd: false,
      groups: [{ _id: hidden.json._id, required: false }],
    });
    expect(attr.status).toBe(201);
    const set = await e2e.api('PATCH', `/api/v1/products/${ids.c1}`, {
      attribute_groups: [hidden.json._id],
      attributes: { unit_cost: 12.5 },
    });
    expect(set.status).toBe(200);
    const anaSees = await as('ana', 'GET', `/api/v1/products/${ids.c1}`);
    expect(anaSees.status).toBe(200);
    expect(anaSees.json.attributes).toEqual({});
    expect(JSON.stringify(anaSees.json)).not.toContain('unit_cost');
    const listed = await as('ana', 'GET', `/api/v1/products?code=c1`);
    expect(JSON.stringify(listed.json)).not.toContain('unit_cost');
    expect((await as('bruno', 'GET', `/api/v1/products/${ids.c1}`)).json.attributes).toEqual({ unit_cost: 12.5 });

    const write = await as('ana', 'PATCH', `/api/v1/products/${ids.c1}`, { attributes: { unit_cost: 1 } });
    expect(write.status).toBe(403);
    expect(write.json).toMatchObject({ kind: 'authorization', details: [{ field: 'attributes.unit_cost' }] });
    const other = await as('ana', 'PATCH', `/api/v1/products/${ids.c1}`, { tags: ['ana-was-here'] });
    expect(other.status).toBe(200);
    expect((await e2e.api('GET', `/api/v1/products/${ids.c1}`)).json).toMatchObject({
      tags: ['ana-was-here'],
      attributes: { unit_cost: 12.5 },
    });
  });

  it('never runs a query naming an attribute hidden from the user: product filters, exports, bulk publications, workflow approvals', async () => {
    // unit_cost is hidden from Ana (the test before); c1, which she sees, holds 12.5.
    const anaKey = await e2e.newKey(
      ['products:read', 'exports:write', 'publications:write', 'workflow_approvals:write'],
      { user_id: USERS.ana, user_name: 'ana' },
    );
    const ana = (method: string, path: string, body?: unknown) =>
      e2e.api(method, path, body, { authorization: `Bearer ${anaKey}` });
    const hiddenRefusal = (what: string, r: { status: number; json: Json }) =>
      expect([what, r.status, r.json.kind, JSON.stringify(r.json.details)]).toEqual([
        what,
        403,
        'authorization',
        expect.stringContaining('unit_cost'),
      ]);
    for (const [suffix, value] of [
      ['', '12.5'],
      ['_ne', '1'],
      ['_in', '12.5,13'],
      ['_nin', '1'],
      ['_exists', 'true'],
      ['_exists', 'false'],
      ['_gt', '1'],
      ['_gte', '12.5'],
      ['_lt', '100'],
      ['_lte', '100'],
    ]) {
      const q = `attributes.unit_cost${suffix}=${value}`;
      hiddenRefusal(q, await ana('GET', `/api/v1/products?${q}`));
      hiddenRefusal(`${q} with _id`, await ana('GET', `/api/v1/products?_id=${ids.c1}&${q}`));
    }
    // The binary search that read a value in 11 requests: every probe answers the same refusal.
    const answers = new Set<string>();
    let [low, high] = [0, 1024];
    for (let i = 0; i < 11; i++) {
      const mid = (low + high) / 2;
      const r = await ana('GET', `/api/v1/products?_id=${ids.c1}&attributes.unit_cost_gte=${mid}`);
      answers.add(`${r.status} ${String(r.json.message)}`);
      if (r.status === 200 && (r.json.total as number) > 0) low = mid;
      else high = mid;
    }
    expect([...answers]).toEqual(["403 You may not query the attributes 'unit_cost'"]);
    // Bruno is not denied the attribute: the same filter answers him.
    const bruno = await as('bruno', 'GET', `/api/v1/products?_id=${ids.c1}&attributes.unit_cost_gte=12`);
    expect([bruno.status, bruno.json.total]).toEqual([200, 1]);

    // Exports: attr_control and an attribute column are refused at creation, and nothing is stored.
    const unitCost = ((await e2e.api('GET', '/api/v1/attributes?key=unit_cost')).json.data as Json[])[0]._id;
    const exportsBefore = (await e2e.api('GET', '/api/v1/exports?limit=1')).json.total;
    hiddenRefusal(
      'attr_control',
      await ana('POST', '/api/v1/exports', {
        file_type: 'csv',
        report_type: 'per_attributes',
        filters: {
          attr_control: [{ attribute_item: { id: unitCost }, attributes: { key: 'unit_cost', name: 'Cost' } }],
        },
      }),
    );
    const column = await ana('POST', '/api/v1/exports', {
      file_type: 'csv',
      report_type: 'general',
      headers: [
        { label: 'code', value: 'code', isAttribute: false },
        { label: 'Cost', value: 'unit_cost', isAttribute: true },
      ],
    });
    hiddenRefusal('export column', column);
    expect(column.json.details).toContainEqual({ field: 'headers.1', message: 'is hidden from your user' });
    expect((await e2e.api('GET', '/api/v1/exports?limit=1')).json.total).toBe(exportsBefore);
    // A default export's columns are the attributes its products hold: never one hidden from its creator.
    const columnsOf = async (key: string) => {
      const made = await e2e.api(
        'POST',
        '/api/v1/exports',
        { file_type: 'csv', report_type: 'general', filters: { _id_in: [ids.c1] } },
        { authorization: `Bearer ${key}` },
      );
      expect(made.status).toBe(201);
      await eventually(
        async () => (await e2e.api('GET', `/api/v1/exports/${made.json._id as string}`)).json.status === 'completed',
        60_000,
      );
      const res = await fetch(`${e2e.platform.gatewayUrl}/exports/${made.json._id as string}/download`, {
        headers: { authorization: `Bearer ${key}` },
      });
      return (await res.text()).split(/\r?\n/)[0];
    };
    expect(await columnsOf(anaKey)).not.toContain('unit_cost');
    expect(await columnsOf(keys.bruno)).toContain('unit_cost');

    // Bulk publications and workflow approvals keep filters to run later: refused when given.
    const channel = await e2e.api('POST', '/api/v1/channels', {
      code: 'hidden_shop',
      name: 'Hidden shop',
      endpoint: { url: 'http://127.0.0.1:9/listings', timeout_ms: 1_000 },
    });
    expect(channel.status).toBe(201);
    const batchesBefore = (await e2e.api('GET', '/api/v1/publication-batches?limit=1')).json.total;
    const bulk = await ana('POST', '/api/v1/publications/bulk', {
      channel_id: channel.json._id,
      filters: { 'attributes.unit_cost_exists': 'true' },
    });
    hiddenRefusal('bulk publication', bulk);
    expect(bulk.json.details).toContainEqual({
      field: 'filters.attributes.unit_cost',
      message: 'is hidden from your user',
    });
    expect((await e2e.api('GET', '/api/v1/publication-batches?limit=1')).json.total).toBe(batchesBefore);
    const steps = [{ name: 'Review', order: 1, approvers: [USERS.bruno] }];
    hiddenRefusal(
      'workflow approval',
      await ana('POST', '/api/v1/workflow-approvals', {
        code: 'ana_costly',
        name: 'Costly',
        enabled: true,
        filters: { 'attributes.unit_cost_gte': '10' },
        steps,
      }),
    );
    expect((await e2e.api('GET', '/api/v1/workflow-approvals?code=ana_costly')).json.total).toBe(0);
    // One made by someone who may: Ana may rename it (its filters stay as they are), not change them.
    const costly = await e2e.api('POST', '/api/v1/workflow-approvals', {
      code: 'costly',
      name: 'Costly',
      enabled: true,
      filters: { 'attributes.unit_cost_gte': '10' },
      steps,
    });
    expect(costly.status).toBe(201);
    const at = `/api/v1/workflow-approvals/${costly.json._id as string}`;
    expect((await ana('PATCH', at, { name: 'Costly ones' })).status).toBe(200);
    hiddenRefusal('workflow approval patch', await ana('PATCH', at, { filters: { 'attributes.unit_cost_gte': '1' } }));
    expect((await e2e.api('GET', at)).json).toMatchObject({ filters: { 'attributes.unit_cost_gte': '10' } });
    expect((await e2e.api('DELETE', at)).status).toBe(204);
  });

  it('never lets a relation or a proposal name a product out of sight, and keeps the items a user cannot see', async () => {
    const anaKey = await e2e.newKey(['product_relations:write', 'product_approvals:write'], {
      user_id: USERS.ana,
      user_name: 'ana',
    });
    const ana = (method: string, path: string, body?: unknown) =>
      e2e.api(method, path, body, { authorization: `Bearer ${anaKey}` });
    const UNKNOWN = '6740a1b2c3d4e5f60000dead';
    const service = await e2e.api('POST', '/api/v1/products', {
      code: 'c2_service',
      type: 'service',
      name: { en: 'Installation' },
      catalogs: [{ _id: catalogs.c2, user_groups: [] }],
    });
    expect(service.status).toBe(201);
    const unseenService = service.json._id as string;
    /** What an answer says of each item: its messages, ids written as <id>. */
    const said = (r: { status: number; json: Json }) => [
      r.status,
      ((r.json.details ?? []) as Json[]).map((d) => String(d.message).replace(/[0-9a-f]{24}/g, '<id>')),
    ];

    // An association naming a product out of sight and an unknown id: both are unknown products.
    const both = await ana('POST', '/api/v1/product-relations', {
      type: 'association',
      product_id: ids.c1,
      association: [{ id: ids.c2 }, { id: UNKNOWN }],
    });
    expect(said(both)).toEqual([400, ["no live product has _id '<id>'", "no live product has _id '<id>'"]]);
    // A kit item out of sight is not created; a service out of sight is unknown, not "a service".
    for (const [type, unseen] of [
      ['kit_products', ids.c2],
      ['kit_products', unseenService],
      ['kit_services', ids.c2],
      ['eligible_service_products', ids.c2],
    ] as const) {
      const hidden = await ana('POST', '/api/v1/product-relations', {
        type,
        product_id: ids.c1,
        [type]: [{ id: unseen, ...(type.startsWith('kit_') ? { quantity: 1 } : {}) }],
      });
      const none = await ana('POST', '/api/v1/product-relations', {
        type,
        product_id: ids.c1,
        [type]: [{ id: UNKNOWN, ...(type.startsWith('kit_') ? { quantity: 1 } : {}) }],
      });
      expect([type, unseen, ...said(hidden)]).toEqual([type, unseen, ...said(none)]);
      expect(hidden.status).toBe(400);
    }
    expect((await e2e.api('GET', `/api/v1/product-relations?product_id=${ids.c1}`)).json.total).toBe(0);

    // A relation holding an item Ana cannot see: her replace and patch keep it.
    const made = await e2e.api('POST', '/api/v1/product-relations', {
      type: 'association',
      product_id: ids.c1,
      association: [{ id: ids.c1_c2 }, { id: ids.c2 }],
    });
    expect(made.status).toBe(201);
    const at = `/api/v1/product-relations/${made.json._id as string}`;
    const itemsNow = async () =>
      ((await e2e.api('GET', at)).json.association as { id: string }[]).map((i) => i.id).sort();
    const put = await ana('PUT', at, { type: 'association', product_id: ids.c1, association: [{ id: ids.c1_c3 }] });
    expect(put.status).toBe(200);
    expect(await itemsNow()).toEqual([ids.c1_c3, ids.c2].sort());
    const patch = await ana('PATCH', at, { association: [{ id: ids.c1_c2 }] });
    expect(patch.status).toBe(200);
    expect(await itemsNow()).toEqual([ids.c1_c2, ids.c2].sort());
    // Sent back as read, the held item stays; a new one out of sight is still unknown.
    expect((await ana('PATCH', at, { association: [{ id: ids.c1_c2 }, { id: ids.c2 }] })).status).toBe(200);
    expect(said(await ana('PATCH', at, { association: [{ id: ids.c2_c3 }] }))).toEqual([
      400,
      ["no live product has _id '<id>'"],
    ]);
    expect((await e2e.api('DELETE', at)).status).toBe(204);

    // Product approvals: proposed items out of sight are unknown products too, before any other rule.
    const group = await e2e.api('POST', '/api/v1/attribute-groups', { key: 'proposal_specs', name: { en: 'Specs' } });
    for (const list of ['kit_products', 'disassociate_kit_products', 'eligible_service_products', 'kit_services']) {
      const proposal = (id: string) => ({
        product_id: ids.c1,
        attribute_groups: [group.json._id],
        [list]: [{ id, ...(list.includes('kit_') ? { quantity: 1 } : {}) }],
      });
      const hidden = await ana('POST', '/api/v1/product-approvals', proposal(ids.c2));
      const none = await ana('POST', '/api/v1/product-approvals', proposal(UNKNOWN));
      expect([list, ...said(hidden)]).toEqual([list, 400, ["no live product has _id '<id>'"]]);
      expect([list, ...said(none)]).toEqual([list, ...said(hidden)]);
    }
    expect((await e2e.api('DELETE', `/api/v1/products/${unseenService}`)).status).toBe(204);
  });

  it('takes a membership change into account on the next request, on either gateway', async () => {
    const before = await as('bruno', 'GET', '/api/v1/products?limit=100', undefined, secondBase);
    expect(before.json.total).toBe(expected('bruno').length);
    const removed = await e2e.api('PATCH', `/api/v1/users-groups/${groups.g2}`, { users: [] });
    expect(removed.status).toBe(200);
    members.g2 = [];
    for (const at of [secondBase, undefined]) {
      const after = await as('bruno', 'GET', '/api/v1/products?limit=100', undefined, at);
      expect(codesOf(after.json.data)).toEqual(expected('bruno'));
      expect((await as('bruno', 'GET', `/api/v1/products/${ids.c2}`, undefined, at)).status).toBe(404);
    }
    expect(expected('bruno')).toEqual(['c1', 'c1_c2', 'c1_c3']);
    const full = await e2e.api('PATCH', `/api/v1/users-groups/${groups.g1}`, { has_full_product_access: true });
    expect(full.status).toBe(200);
    expect((await as('ana', 'GET', '/api/v1/products?limit=100', undefined, secondBase)).json.total).toBe(
      census.length,
    );
  });
});
