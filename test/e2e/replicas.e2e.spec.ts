import { Readable } from 'node:stream';
import { readRows, type Cell } from '@pim/sheets';
import { startReceiver, type TestReceiver } from '@pim/testing';
import { apiAt, eventually, startE2E, type E2E } from './platform';

type Json = Record<string, unknown>;
type Call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Answer>;
interface Answer {
  status: number;
  headers: Headers;
  json: Json;
}

const FINAL = ['completed', 'completed_with_errors', 'failed', 'cancelled'];
const PRODUCTS = 40;
const ANA = '6740a1b2c3d4e5f6012345a1';

// Two replicas of every app (the gateway too, on two ports) against one Postgres and one NATS,
// as production runs them. Every request alternates between the gateways, and each gateway
// spreads its gRPC calls over both replicas of the app it calls; every background worker
// (outbox relays, consumers, webhook deliveries, job queues, the completeness recompute) runs
// twice. What one replica did must be seen by the other, and no work may happen twice.
describe('two replicas of every app', () => {
  let e2e: E2E;
  let receiver: TestReceiver;
  let gateways: Call[];
  let bases: string[];
  /** The n-th call goes to gateway n % 2. */
  let turn = 0;
  const next: Call = (...args) => gateways[turn++ % 2](...args);

  // Fourteen processes start on two cores.
  beforeAll(async () => {
    receiver = await startReceiver();
    e2e = await startE2E(
      'e2ereplicas',
      {
        WEBHOOKS_ALLOWED_TARGETS: '127.0.0.0/8,::1/128',
        RATE_LIMIT_ANONYMOUS_PER_MINUTE: '30',
        IMPORT_SUPERVISE_SECONDS: '1',
        // Fourteen processes, each with its listeners besides its pool: pools of 3 keep the whole
        // platform well inside a default Postgres's 100 connections.
        DB_POOL_SIZE: '3',
      },
      { replicas: 2, startTimeoutMs: 180_000 },
    );
    bases = e2e.platform.gatewayUrls.map((u) => u.replace(/\/api\/v1$/, ''));
    gateways = bases.map((base) => apiAt(base, e2e.adminKey));
  }, 240_000);

  afterAll(async () => {
    await e2e?.close();
    await receiver?.close();
  });

  /** Deliveries the receiver got, parsed, with their webhook-id. */
  const deliveries = () =>
    receiver.requests.map((r) => ({
      id: String(r.headers['webhook-id']),
      ...(JSON.parse(r.body) as { type: string; data: Json }),
    }));

  it('runs two healthy processes of each of the seven apps, each gateway on its own port', async () => {
    const replicas = e2e.platform.replicas;
    expect(Object.keys(replicas).sort()).toEqual(
      ['catalog', 'gateway', 'io-jobs', 'orders', 'publisher', 'webhooks', 'workflow'].sort(),
    );
    for (const [app, list] of Object.entries(replicas)) {
      expect(list.map((r) => r.name)).toEqual([app, `${app}-2`]);
      expect(new Set(list.map((r) => r.port)).size).toBe(2);
    }
    for (const base of bases) expect((await fetch(`${base}/readyz`)).status).toBe(200);
  });

  it('makes a POST with an Idempotency-Key happen once, whichever gateway each attempt reaches', async () => {
    const body = { code: 'IDEMPOTENT-1', name: { en: 'Idempotent' }, type: 'simple' };
    const headers = { 'idempotency-key': 'replicas-create-1' };
    const attempts = await Promise.all(
      Array.from({ length: 10 }, () => next('POST', '/api/v1/products', body, headers)),
    );
    expect(new Set(attempts.map((a) => a.status))).toEqual(new Set([201]));
    expect(new Set(attempts.map((a) => a.json._id)).size).toBe(1);
    for (const gateway of gateways) {
      const again = await gateway('POST', '/api/v1/products', body, headers);
      expect(again.json._id).toBe(attempts[0].json._id);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
    }
    expect((await next('GET', '/api/v1/products?code=IDEMPOTENT-1')).json.total).toBe(1);
  });

  it('stops a revoked API key on both gateways at once', async () => {
    const created = await next('POST', '/api/v1/api-keys', { name: 'short-lived', scopes: ['products:read'] });
    expect(created.status).toBe(201);
    const holders = bases.map((base) => apiAt(base, created.json.key as string));
    for (const holder of holders) expect((await holder('GET', '/api/v1/products?limit=1')).status).toBe(200);
    expect((await gateways[0]('DELETE', `/api/v1/api-keys/${created.json._id as string}`)).status).toBe(204);
    for (const holder of holders) {
      const refused = await holder('GET', '/api/v1/products?limit=1');
      expect(refused.status).toBe(401);
      expect(refused.json).toMatchObject({ code: 401, kind: 'authentication' });
    }
  });

  let group: string;
  const productIds: string[] = [];

  it('delivers each product event once to a webhook, though two fan-outs and two delivery workers run', async () => {
    expect((await next('PUT', '/api/v1/webhooks', { collection: 'products', url: receiver.url })).status).toBe(200);
    group = (await next('POST', '/api/v1/attribute-groups', { key: 'specs', name: { en: 'Specs' } })).json
      ._id as string;
    const created = await Promise.all(
      Array.from({ length: PRODUCTS }, (_, i) =>
        next('POST', '/api/v1/products', {
          code: `MUG-${String(i).padStart(3, '0')}`,
          name: { en: `Mug ${i}`, pt: `Caneca ${i}` },
          type: 'simple',
          attribute_groups: [group],
        }),
      ),
    );
    expect(new Set(created.map((c) => c.status))).toEqual(new Set([201]));
    productIds.push(...created.map((c) => c.json._id as string));

    const createdOf = () =>
      deliveries().filter((d) => d.type === 'products.created' && productIds.includes(String(d.data._id)));
    await eventually(async () => createdOf().length >= PRODUCTS, 30_000);
    await settle(() => receiver.requests.length);
    const ids = deliveries().map((d) => d.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(createdOf()).toHaveLength(PRODUCTS);
    expect(new Set(createdOf().map((d) => d.data._id)).size).toBe(PRODUCTS);
  });

  it('recomputes completeness once per product when an attribute becomes required, with two catalog workers', async () => {
    const before = (await next('GET', `/api/v1/products/${productIds[0]}`)).json;
    expect(before.completeness).toEqual({ en: 100, pt: 100 });
    const since = receiver.requests.length;
    const attribute = await next('POST', '/api/v1/attributes', {
      key: 'material',
      name: { en: 'Material' },
      association: 'product',
      protected_by_lgpd: false,
      groups: [{ _id: group, required: true }],
    });
    expect(attribute.status).toBe(201);

    const updated = () =>
      deliveries()
        .slice(since)
        .filter((d) => d.type === 'products.updated' && productIds.includes(String(d.data._id)));
    await eventually(async () => updated().length >= PRODUCTS, 30_000);
    await settle(() => receiver.requests.length);
    expect(updated()).toHaveLength(PRODUCTS);
    expect(new Set(updated().map((d) => d.data._id)).size).toBe(PRODUCTS);
    for (const d of updated()) expect(d.data.completeness).toEqual({ en: 0, pt: 0 });
    for (const gateway of gateways) {
      const page = await gateway('GET', '/api/v1/products?completeness_min_lt=100&limit=1');
      expect(page.json.total).toBe(PRODUCTS);
    }
  });

  it('runs an export created on one gateway, watched and downloaded on the other', async () => {
    const created = await gateways[0]('POST', '/api/v1/exports', { file_type: 'csv' });
    expect(created.status).toBe(201);
    const done = await finalOf(gateways[1], `/api/v1/exports/${created.json._id as string}`);
    expect(done.status).toBe('completed');
    const res = await fetch(`${bases[1]}/api/v1/exports/${done._id as string}/download`, {
      headers: { authorization: `Bearer ${e2e.adminKey}` },
    });
    expect(res.status).toBe(200);
    const rows: Cell[][] = [];
    const bytes = Buffer.from(await res.arrayBuffer());
    for await (const r of readRows({ format: 'csv', open: async () => Readable.from([bytes]) }, undefined))
      rows.push(r.cells);
    const code = rows[0].indexOf('code');
    expect(code).toBeGreaterThanOrEqual(0);
    expect(
      rows
        .slice(1)
        .map((r) => String(r[code]))
        .filter((c) => c.startsWith('MUG-'))
        .sort(),
    ).toEqual(Array.from({ length: PRODUCTS }, (_, i) => `MUG-${String(i).padStart(3, '0')}`));
  });

  it('runs an import uploaded on one gateway, mapped and started on the other, exactly once', async () => {
    const lines = ['SKU;Name', ...Array.from({ length: 50 }, (_, i) => `VASE-${i};Vase ${i}`)];
    const form = new FormData();
    form.append('file', new Blob([`${lines.join('\r\n')}\r\n`]), 'vases.csv');
    const up = await fetch(`${bases[0]}/api/v1/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${e2e.adminKey}` },
      body: form,
    });
    expect(up.status).toBe(201);
    const id = ((await up.json()) as Json)._id as string;
    const mapped = await gateways[1]('PATCH', `/api/v1/imports/${id}`, { mapped_headers: { A: 'code', B: 'name.en' } });
    expect(mapped.status).toBe(200);
    // Both gateways are asked to start it: one start wins, the other finds it queued already.
    const starts = await Promise.all(gateways.map((g) => g('POST', `/api/v1/imports/${id}/start`)));
    expect(starts.map((s) => s.status).sort()).toEqual([200, 409]);
    const done = await finalOf(gateways[0], `/api/v1/imports/${id}`);
    expect(done).toMatchObject({ status: 'completed' });
    const page = await gateways[1]('GET', '/api/v1/products?_search=VASE&limit=100');
    expect(page.json.total).toBe(50);
    expect((page.json.data as Json[]).every((p) => p.version === 1)).toBe(true);
  });

  it('takes an approval step on one gateway and the decision on the other, applying the change once', async () => {
    const team = await next('POST', '/api/v1/users-groups', {
      source_id: 'sso',
      name: 'Approvers',
      users: [{ id: ANA, name: 'Ana' }],
      has_full_product_access: true,
    });
    expect(team.status).toBe(201);
    const flow = await next('POST', '/api/v1/workflow-approvals', {
      code: 'changes',
      name: 'Changes',
      enabled: true,
      steps: [{ name: 'Owner', order: 1, approvers: [ANA] }],
    });
    expect(flow.status).toBe(201);
    const ana = await e2e.newKey(['product_approvals:read', 'product_approvals:write'], {
      user_id: ANA,
      user_name: 'Ana',
    });
    const as = bases.map((base) => apiAt(base, ana));
    const plate = await next('POST', '/api/v1/products', { code: 'PLATE-1', name: { en: 'Plate' }, type: 'simple' });
    const product = plate.json._id as string;
    const extras = (await next('POST', '/api/v1/attribute-groups', { key: 'extras', name: { en: 'Extras' } })).json
      ._id as string;
    const proposal = await as[0]('POST', '/api/v1/product-approvals', {
      product_id: product,
      attribute_groups: [extras],
    });
    expect(proposal).toMatchObject({ status: 201 });
    const id = proposal.json._id as string;
    const decisions = await Promise.all(as.map((a) => a('POST', `/api/v1/product-approvals/${id}/approve`, {})));
    expect(decisions.map((d) => d.status).sort()).toEqual([200, 409]);
    const approved = decisions.find((d) => d.status === 200)!;
    expect(approved.json).toMatchObject({ status: 'approved', application: { status: 'applied' } });

    const after = (await next('GET', `/api/v1/products/${product}`)).json;
    expect(after).toMatchObject({
      attribute_groups: [extras],
      product_approval: id,
      version: (plate.json.version as number) + 1,
    });
  });

  it('keeps answering through both gateways while one replica of the catalog is killed', async () => {
    e2e.platform.kill('catalog-2', 'SIGKILL');
    // Calls may fail until each gateway's channel has seen the killed process go (a call picked
    // for it before then is a 503); then every call goes to the other. Settled means a round that
    // gives each gateway's round-robin several picks — one lucky round of two calls is not.
    let answers: Answer[] = [];
    await eventually(async () => {
      answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) => gateways[i % 2]('GET', `/api/v1/products/${productIds[0]}`)),
      );
      return answers.every((a) => a.status === 200);
    }, 10_000).catch((err: Error) => {
      throw new Error(`${err.message}: ${JSON.stringify(answers.map((a) => [a.status, a.json.message]))}`);
    });
    const more = await Promise.all(Array.from({ length: 20 }, () => next('GET', `/api/v1/products/${productIds[0]}`)));
    expect(more.map((a) => a.status)).toEqual(Array(20).fill(200));
    await e2e.platform.restart('catalog-2');
  });

  it('counts one rate limit across both gateways (last: it spends this address’s budget for calls without a key)', async () => {
    const first = await fetch(`${bases[0]}/api/v1/collections`);
    expect(first.status).toBe(401);
    const left = Number(first.headers.get('ratelimit-remaining'));
    expect(left).toBeGreaterThan(0);
    const statuses = await Promise.all(
      Array.from({ length: left + 10 }, (_, i) =>
        fetch(`${bases[(i + 1) % 2]}/api/v1/collections`).then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 401)).toHaveLength(left);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
  });
});

/** Polls a job through one gateway until it is final. */
async function finalOf(call: Call, path: string): Promise<Json> {
  let last: Json = {};
  await eventually(async () => {
    const r = await call('GET', path);
    if (r.status === 200) last = r.json;
    return FINAL.includes(last.status as string);
  }, 60_000);
  return last;
}

/** Waits until a count has not changed for a second: a second send of anything would have come by then. */
async function settle(count: () => number): Promise<void> {
  let last = -1;
  while (count() !== last) {
    last = count();
    await new Promise((r) => setTimeout(r, 1_000));
  }
}
