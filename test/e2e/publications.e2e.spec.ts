import { Client } from 'pg';
import { parseSecretsKeys, sealedKeyId } from '@pim/secrets';
import { startReceiver, type TestReceiver } from '@pim/testing';
import { eventually, startE2E, type E2E } from './platform';

type Json = Record<string, unknown>;
type Tracking = { status: string; message: string; created_at: string; data: string[] }[];

const TOKEN = 'Bearer shop-secret-0123456789';

// Publishing through the whole platform, over HTTP only, to a channel that is a local HTTP server:
// channel → readiness → publication (snapshot) → the publisher's sender → the channel → outcome →
// the catalog product's publication fields → products.updated → auto-republish.
describe('publications through the whole platform', () => {
  let e2e: E2E;
  let receiver: TestReceiver;
  let channel: Json;
  let n = 0;

  /** Polls a publication until it reaches one of the statuses. */
  const until = async (id: string, statuses: string[], timeoutMs = 30_000): Promise<Json> => {
    let last: Json = {};
    await eventually(async () => {
      const r = await e2e.api('GET', `/api/v1/publications/${id}`);
      if (r.status === 200) last = r.json;
      return statuses.includes(last.status as string);
    }, timeoutMs);
    return last;
  };
  const steps = (p: Json) => (p.tracking as Tracking).map((t) => t.status);
  const newProduct = async (attributes: Json = {}) => {
    const r = await e2e.api('POST', '/api/v1/products', {
      code: `PUB-${++n}`,
      name: { 'pt-BR': `Camisa ${n}`, en: `Shirt ${n}` },
      type: 'simple',
      attribute_groups: [groupId],
      attributes,
    });
    expect(r.status).toBe(201);
    return r.json;
  };
  const publish = (product: Json, ch: Json = channel) =>
    e2e.api('POST', '/api/v1/publications', { product_id: product._id, channel_id: ch._id });
  let groupId = '';

  beforeAll(async () => {
    e2e = await startE2E('e2epublications', {
      PUBLISHER_ALLOWED_TARGETS: '127.0.0.0/8',
      PUBLISHER_RETRY_SCHEDULE: '300ms,600ms,1s',
      PUBLISHER_RETRY_JITTER: '0',
    });
    receiver = await startReceiver('/listings');
    const group = await e2e.api('POST', '/api/v1/attribute-groups', { key: 'listing', name: { en: 'Listing' } });
    expect(group.status).toBe(201);
    groupId = group.json._id as string;
    for (const key of ['color', 'material']) {
      const r = await e2e.api('POST', '/api/v1/attributes', {
        key,
        name: { en: key },
        type: 'text',
        association: 'product',
        protected_by_lgpd: false,
        groups: [{ _id: groupId, required: false }],
      });
      expect(r.status).toBe(201);
    }
    const created = await e2e.api('POST', '/api/v1/channels', {
      code: 'webshop',
      name: 'Web shop',
      endpoint: { url: receiver.url, headers: [{ key: 'Authorization', value: TOKEN }], timeout_ms: 1_000 },
      language: 'pt-BR',
      mapping: [
        { field: 'title', source: 'name' },
        { field: 'sku', source: 'code' },
        { field: 'specs.color', source: 'attributes.color' },
      ],
      required_attributes: ['color'],
    });
    expect(created.status).toBe(201);
    channel = created.json;
  }, 120_000);

  afterAll(async () => {
    await receiver?.close();
    await e2e?.close();
  });

  beforeEach(() => {
    receiver.requests.length = 0;
    receiver.answer(() => ({ status: 201, headers: { location: 'https://shop.example.com/items/1' }, body: '{}' }));
  });

  it('shows the channel credentials masked and refuses an endpoint on a private address the operator did not allow', async () => {
    expect(channel.endpoint).toEqual({
      url: receiver.url,
      method: 'POST',
      headers: [{ key: 'Authorization', value: '****6789' }],
      timeout_ms: 1_000,
    });
    // At rest the credential is sealed with the platform's operator key (PIM_SECRETS_KEYS).
    const pg = new Client({ connectionString: e2e.db.url });
    await pg.connect();
    try {
      const { rows } = await pg.query(
        `SELECT endpoint->'headers'->0->>'value' AS value FROM publisher.channels WHERE _id = $1`,
        [channel._id],
      );
      expect(rows[0].value).not.toContain(TOKEN.slice(-10));
      expect(sealedKeyId(rows[0].value)).toBe('e2e');
      expect(parseSecretsKeys(e2e.secretsKeys).open(rows[0].value)).toBe(TOKEN);
    } finally {
      await pg.end();
    }
    for (const url of ['http://10.1.2.3/listings', 'http://169.254.169.254/latest/meta-data']) {
      const r = await e2e.api('POST', '/api/v1/channels', {
        code: `private_${++n}`,
        name: 'Private',
        endpoint: { url },
      });
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ kind: 'validation', details: [{ field: 'endpoint.url' }] });
      expect(r.json.message).toContain(
        'channels only reach public addresses unless PUBLISHER_ALLOWED_TARGETS allows it',
      );
    }
  });

  it('refuses a product missing the required attribute, naming it; readiness says so before', async () => {
    const product = await newProduct({ material: 'cotton' });
    const readiness = await e2e.api('GET', `/api/v1/channels/${channel._id}/readiness?product_id=${product._id}`);
    expect(readiness.status).toBe(200);
    expect(readiness.json).toEqual({
      ready: false,
      missing: [
        {
          field: 'attributes.color',
          message: "the channel 'webshop' requires a value of 'color' (in pt-BR); the product has none",
        },
      ],
    });
    const r = await publish(product);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({
      kind: 'validation',
      title: 'Product not ready for the channel',
      details: [{ field: 'attributes.color' }],
    });
    expect(r.json.solution).toContain(`/api/v1/channels/${channel._id}/readiness?product_id=${product._id}`);
    expect(receiver.requests).toHaveLength(0);
  });

  it('publishes a ready product: the mapped payload, tracking PENDING → IN_PROGRESS → PUBLISHED, the URL, and the product shows it', async () => {
    const product = await newProduct({ color: 'azul' });
    const ready = await e2e.api('GET', `/api/v1/channels/${channel._id}/readiness?product_id=${product._id}`);
    expect(ready.json).toEqual({ ready: true, missing: [] });
    const created = await publish(product);
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      status: 'ready_to_publish',
      product_id: product._id,
      channel_id: channel._id,
    });
    const done = await until(created.json._id as string, ['published', 'failed']);
    expect(done.status).toBe('published');
    expect(steps(done)).toEqual(['PENDING', 'IN_PROGRESS', 'PUBLISHED']);
    expect(done.publishment_url).toBe('https://shop.example.com/items/1');
    const payload = { title: `Camisa ${n}`, sku: `PUB-${n}`, specs: { color: 'azul' } };
    expect(done.published_payload).toEqual(payload);
    expect(receiver.requests).toHaveLength(1);
    expect(JSON.parse(receiver.requests[0].body)).toEqual(payload);
    expect(receiver.requests[0].headers.authorization).toBe(TOKEN);
    expect(receiver.requests[0].headers['idempotency-key']).toBe(done._id);

    let shown: Json = {};
    await eventually(async () => {
      shown = (await e2e.api('GET', `/api/v1/products/${product._id}`)).json;
      return shown.published === true;
    });
    expect(shown).toMatchObject({
      published: true,
      last_publishment_id: done._id,
      publishments: [{ channel: 'webshop', status: 'PUBLISHED', published_at: expect.any(String) }],
    });

    const list = await e2e.api(
      'GET',
      `/api/v1/publications?product_id=${product._id}&status=published&expand=product,channel`,
    );
    expect(list.status).toBe(200);
    expect(list.json.total).toBe(1);
    expect((list.json.data as Json[])[0]).toMatchObject({
      product: { _id: product._id, code: product.code },
      channel: { _id: channel._id, code: 'webshop', endpoint: { headers: [{ value: '****6789' }] } },
    });

    const mine = async (action: string) =>
      (await e2e.stream.messages(`${e2e.stream.subjectPrefix}pim.publisher.publications.${action}`)).filter(
        (m) => ((m.data as Json).data as Json)?._id === done._id,
      );
    await eventually(async () => (await mine('status_changed')).length === 2);
    expect(await mine('created')).toHaveLength(1);
    expect((await mine('status_changed')).map((m) => ((m.data as Json).data as Json).status)).toEqual([
      'publishing',
      'published',
    ]);
  }, 60_000);

  it('fails on a 422 with the channel message; a retry after the channel is fixed publishes', async () => {
    receiver.answer(() => ({
      status: 422,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'brand is required by this shop' }),
    }));
    const created = await publish(await newProduct({ color: 'verde' }));
    const failed = await until(created.json._id as string, ['published', 'failed']);
    expect(failed.status).toBe('failed');
    expect((failed.tracking as Tracking).at(-1)).toMatchObject({
      status: 'FAILED',
      message: 'The channel answered 422: brand is required by this shop',
    });
    expect(receiver.requests).toHaveLength(1);

    receiver.answer(() => ({ status: 200, body: JSON.stringify({ url: 'https://shop.example.com/items/2' }) }));
    const retried = await e2e.api('POST', `/api/v1/publications/${failed._id}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.json.status).toBe('ready_to_publish');
    const done = await until(failed._id as string, ['published', 'failed']);
    expect(done).toMatchObject({ status: 'published', publishment_url: 'https://shop.example.com/items/2' });

    const again = await e2e.api('POST', `/api/v1/publications/${failed._id}/retry`);
    expect(again.status).toBe(409);
    expect(again.json.message).toMatch(
      /is published: only a failed publication is retried \(from published to ready_to_publish\)/,
    );
    // A publication is never edited: there is no PATCH or PUT route.
    const patch = await e2e.api('PATCH', `/api/v1/publications/${failed._id}`, { status: 'failed' });
    expect(patch).toMatchObject({ status: 405, json: { kind: 'method_not_allowed' } });
    expect(patch.headers.get('allow')).toContain('GET');
  }, 60_000);

  it('retries a channel that times out, with a growing delay, until it answers', async () => {
    receiver.answer((_req, i) => (i <= 2 ? { status: 201, delayMs: 1_500 } : { status: 201, body: '{}' }));
    const created = await publish(await newProduct({ color: 'roxo' }));
    const done = await until(created.json._id as string, ['published', 'failed']);
    expect(done.status).toBe('published');
    expect(steps(done)).toEqual([
      'PENDING',
      'IN_PROGRESS',
      'PENDING',
      'IN_PROGRESS',
      'PENDING',
      'IN_PROGRESS',
      'PUBLISHED',
    ]);
    const tracking = done.tracking as Tracking;
    expect(tracking[2].message).toMatch(/^The channel did not answer within 1000 ms; the next attempt is at /);
    const gap = (a: number, b: number) => Date.parse(tracking[b].created_at) - Date.parse(tracking[a].created_at);
    expect(gap(2, 3)).toBeGreaterThanOrEqual(250);
    expect(gap(4, 5)).toBeGreaterThanOrEqual(550);
    expect(done.attempts).toBe(3);
  }, 60_000);

  it('publishes in bulk: a batch of the products the filters select, refusing those not ready', async () => {
    const ready = [
      await newProduct({ color: 'a' }),
      await newProduct({ color: 'b' }),
      await newProduct({ color: 'c' }),
    ];
    const notReady = await newProduct();
    const ids = [...ready, notReady].map((p) => p._id).join(',');
    const created = await e2e.api('POST', '/api/v1/publications/bulk', {
      channel_id: channel._id,
      filters: { _id_in: ids },
    });
    expect(created.status).toBe(202);
    expect(created.json).toMatchObject({ status: 'pending', channel_id: channel._id });
    const location = created.headers.get('location')!;
    expect(location).toBe(`/api/v1/publication-batches/${created.json._id}`);
    let batch: Json = {};
    await eventually(async () => {
      batch = (await e2e.api('GET', location)).json;
      return batch.status === 'completed';
    }, 30_000);
    expect(batch).toMatchObject({
      products_count: 4,
      publications_count: 3,
      refused_count: 1,
      refusals: [{ product_id: notReady._id, code: notReady.code }],
    });
    await eventually(async () => {
      const list = await e2e.api('GET', `/api/v1/publications?batch_id=${batch._id}&status=published`);
      return list.json.total === 3;
    }, 30_000);
    const bad = await e2e.api('POST', '/api/v1/publications/bulk', {
      channel_id: channel._id,
      filters: { colour: 'x' },
    });
    expect(bad).toMatchObject({ status: 400, json: { kind: 'validation', details: [{ field: 'filters.colour' }] } });
  }, 60_000);

  it('with auto_republish, a change of a published product makes a new publication', async () => {
    const auto = await e2e.api('POST', '/api/v1/channels', {
      code: 'marketplace',
      name: 'Marketplace',
      endpoint: { url: receiver.url },
      mapping: [
        { field: 'sku', source: 'code' },
        { field: 'color', source: 'attributes.color' },
      ],
      auto_republish: true,
    });
    expect(auto.status).toBe(201);
    const product = await newProduct({ color: 'preto' });
    const first = await until((await publish(product, auto.json)).json._id as string, ['published', 'failed']);
    expect(first.status).toBe('published');

    const patched = await e2e.api('PATCH', `/api/v1/products/${product._id}`, { attributes: { color: 'branco' } });
    expect(patched.status).toBe(200);
    let republished: Json | undefined;
    await eventually(async () => {
      const list = await e2e.api('GET', `/api/v1/publications?product_id=${product._id}&origin=auto_republish`);
      republished = (list.json.data as Json[])[0];
      return republished?.status === 'published';
    }, 30_000);
    expect(republished).toMatchObject({
      channel_id: auto.json._id,
      advertisement_id: first.advertisement_id,
      published_payload: { sku: product.code, color: 'branco' },
    });
    // The outcome recorded on the product is itself a products.updated event: it publishes nothing more.
    await new Promise((r) => setTimeout(r, 1_500));
    const all = await e2e.api('GET', `/api/v1/publications?product_id=${product._id}`);
    expect(all.json.total).toBe(2);
  }, 60_000);
});
