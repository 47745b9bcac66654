import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { Webhook } from 'standardwebhooks';
import { parseSecretsKeys, sealedKeyId } from '@pim/secrets';
import { freePort } from '../../tools/start/ports';
import { eventually, startE2E, type E2E } from './platform';

interface Got {
  headers: IncomingHttpHeaders;
  body: string;
}

// HTTP in → gateway → webhooks app → outbox → relay → JetStream → fan-out → delivery → a receiver
// on loopback, and the delivery log back out over HTTP.
describe('webhook delivery through the whole platform', () => {
  let e2e: E2E;
  let server: Server;
  let url: string;
  let metricsPort: number;
  const got: Got[] = [];
  let answer = (_n: number): number => 200;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(answer(got.length)).end('received');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    metricsPort = await freePort();
    e2e = await startE2E('e2edelivery', {
      WEBHOOKS_ALLOWED_TARGETS: '127.0.0.0/8,::1/128',
      WEBHOOKS_RETRY_SCHEDULE: '100ms,100ms,100ms',
      WEBHOOKS_RETRY_JITTER: '0',
      WEBHOOKS_METRICS_PORT: String(metricsPort),
    });
  });

  afterAll(async () => {
    await e2e?.close();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  let sinkId: string;
  let secret: string;
  const payloads = () =>
    got.map((g) => ({
      ...g,
      json: JSON.parse(g.body) as {
        type: string;
        timestamp: string;
        data: Record<string, unknown>;
        [k: string]: unknown;
      },
    }));

  it('delivers every webhooks.* event, signed, to a webhook on that collection; the official library verifies each', async () => {
    const sink = await e2e.api('PUT', '/api/v1/webhooks', {
      collection: 'webhooks',
      url,
      headers: [{ key: 'X-Token', value: 't-1' }],
      body: [{ key: 'tenant', value: 'acme' }],
    });
    expect(sink.status).toBe(200);
    sinkId = sink.json._id as string;
    secret = sink.json.secret as string;
    // At rest the secret is sealed with the platform's operator key (PIM_SECRETS_KEYS), never stored as shown.
    const pg = new Client({ connectionString: e2e.db.url });
    await pg.connect();
    try {
      const { rows } = await pg.query('SELECT secret FROM webhooks.webhooks WHERE _id = $1', [sinkId]);
      expect(rows[0].secret).not.toContain(secret.slice('whsec_'.length));
      expect(sealedKeyId(rows[0].secret)).toBe('e2e');
      expect(parseSecretsKeys(e2e.secretsKeys).open(rows[0].secret)).toBe(secret);
    } finally {
      await pg.end();
    }
    const target = await e2e.api(
      'POST',
      '/api/v1/webhooks',
      { collection: 'products', url: 'https://hooks.example.com/p' },
      { 'x-request-id': 'req-e2e-create' },
    );
    expect(target.status).toBe(201);
    await e2e.api('PATCH', `/api/v1/webhooks/${target.json._id}`, { enabled: false });
    await eventually(async () => payloads().filter((p) => p.json.data._id === target.json._id).length >= 2);

    const verifier = new Webhook(secret);
    for (const g of got) expect(() => verifier.verify(g.body, g.headers as Record<string, string>)).not.toThrow();
    const mine = payloads().filter((p) => p.json.data._id === target.json._id);
    expect(mine.map((p) => p.json.type)).toEqual(['webhooks.created', 'webhooks.updated']);
    expect(mine[0].json).toMatchObject({ tenant: 'acme', data: { collection: 'products', enabled: true } });
    expect(mine[0].headers['x-token']).toBe('t-1');
    expect(new Set(mine.map((p) => p.headers['webhook-id'])).size).toBe(2);
  });

  it('lists the deliveries with the request id of the call that caused them, and shows every attempt', async () => {
    const list = await e2e.api('GET', `/api/v1/webhooks/${sinkId}/deliveries?request_id=req-e2e-create`);
    expect(list.status).toBe(200);
    expect(list.json).toMatchObject({ total: 1, page: 1 });
    const [d] = list.json.data as {
      _id: string;
      status: string;
      event_type: string;
      attempts: number;
      last_status_code: number;
      last_response_body: string;
    }[];
    expect(d).toMatchObject({
      event_type: 'webhooks.created',
      status: 'succeeded',
      attempts: 1,
      last_status_code: 200,
      last_response_body: 'received',
    });

    const one = await e2e.api('GET', `/api/v1/webhooks/${sinkId}/deliveries/${d._id}`);
    expect(one.status).toBe(200);
    expect(one.json.attempt_log).toEqual([
      expect.objectContaining({ number: 1, outcome: 'success', status_code: 200, url }),
    ]);

    const bad = await e2e.api('GET', `/api/v1/webhooks/${sinkId}/deliveries?status=sent&nope=1`);
    expect(bad.status).toBe(400);
    expect((await e2e.api('GET', `/api/v1/webhooks/${sinkId}/deliveries/6740a1b2c3d4e5f601234567`)).status).toBe(404);
    expect((await e2e.api('GET', `/api/v1/webhooks/${sinkId}/deliveries/nope`)).status).toBe(400);
  });

  it('retries a failing receiver with the same webhook-id and logs each attempt; redeliver sends it again', async () => {
    const before = got.length;
    answer = (n) => (n <= before + 2 ? 500 : 200);
    const t = await e2e.api('POST', '/api/v1/webhooks', { collection: 'brands', url: 'https://hooks.example.com/b' });
    await eventually(async () => got.length >= before + 3);
    const tries = got.slice(before).filter((g) => JSON.parse(g.body).data._id === t.json._id);
    expect(tries).toHaveLength(3);
    expect(new Set(tries.map((g) => g.headers['webhook-id'])).size).toBe(1);
    answer = () => 200;

    const list = await e2e.api(
      'GET',
      `/api/v1/webhooks/${sinkId}/deliveries?event_id=${tries[0].headers['webhook-id']}`,
    );
    const [d] = list.json.data as { _id: string }[];
    const detail = await e2e.api('GET', `/api/v1/webhooks/${sinkId}/deliveries/${d._id}`);
    expect((detail.json.attempt_log as { status_code: number }[]).map((a) => a.status_code)).toEqual([500, 500, 200]);

    const again = await e2e.api('POST', `/api/v1/webhooks/${sinkId}/deliveries/${d._id}/redeliver`);
    expect(again.status).toBe(202);
    expect(again.json).toMatchObject({ _id: d._id, status: 'pending' });
    await eventually(
      async () => got.filter((g) => g.headers['webhook-id'] === tries[0].headers['webhook-id']).length === 4,
    );

    const recovered = await e2e.api('POST', `/api/v1/webhooks/${sinkId}/recover?since=2020-01-01T00:00:00Z`);
    expect(recovered.status).toBe(202);
    expect(recovered.json).toEqual({ recovered: 0 });
    expect((await e2e.api('POST', `/api/v1/webhooks/${sinkId}/recover`)).status).toBe(400);
  });

  it('sends a signed test event, and rotates the secret with both signatures during the overlap', async () => {
    const test = await e2e.api('POST', `/api/v1/webhooks/${sinkId}/test`);
    expect(test.status).toBe(202);
    expect(test.headers.get('location')).toBe(`/api/v1/webhooks/${sinkId}/deliveries/${test.json._id}`);
    await eventually(async () => payloads().some((p) => p.json.type === 'webhooks.test'));
    const t = payloads().find((p) => p.json.type === 'webhooks.test')!;
    expect(() => new Webhook(secret).verify(t.body, t.headers as Record<string, string>)).not.toThrow();

    const rotated = await e2e.api('POST', `/api/v1/webhooks/${sinkId}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.json.secret).toMatch(/^whsec_/);
    expect(rotated.json.previous_secret_expires_at).toEqual(expect.any(String));
    const before = got.length;
    await e2e.api('POST', `/api/v1/webhooks/${sinkId}/test`);
    await eventually(async () => got.length > before);
    const last = got[got.length - 1];
    expect(() =>
      new Webhook(rotated.json.secret as string).verify(last.body, last.headers as Record<string, string>),
    ).not.toThrow();
    expect(() => new Webhook(secret).verify(last.body, last.headers as Record<string, string>)).not.toThrow();
  });

  it('refuses a target on a private or metadata address at configuration time', async () => {
    for (const target of ['http://169.254.169.254/', 'http://10.0.0.1/', 'http://[::ffff:169.254.169.254]/']) {
      const r = await e2e.api('POST', '/api/v1/webhooks', { collection: 'orders', url: target });
      expect({ target, status: r.status, name: r.json.name }).toEqual({ target, status: 400, name: 'ValidationError' });
    }
  });

  it('serves the event catalog and the delivery metrics', async () => {
    // A list like every other: the whole catalog fits one page of the largest size.
    const types = await e2e.api('GET', '/api/v1/event-types?limit=100');
    expect(types.status).toBe(200);
    const data = types.json.data as { type: string; schema: Record<string, unknown> }[];
    expect(types.json.total).toBe(data.length);
    expect(data.map((t) => t.type)).toEqual(
      expect.arrayContaining(['products.updated', 'orders.status_changed', 'webhooks.test']),
    );
    expect(JSON.stringify(data.find((t) => t.type === 'webhooks.created')!.schema)).toContain('"collection"');

    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/pim_webhooks_attempts_total\{outcome="success"\} \d+/);
    expect(metrics).toMatch(/pim_webhooks_attempts_total\{outcome="http_error"\} 2/);
    expect(metrics).toContain('pim_webhooks_event_to_first_attempt_seconds_bucket');
  });
});
