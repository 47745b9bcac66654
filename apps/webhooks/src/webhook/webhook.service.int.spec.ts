import 'reflect-metadata';
import type { DataSource } from 'typeorm';
import { OutboxRelay } from '@pim/events';
import { createLogger, runWithContext } from '@pim/logging';
import { ConflictError, NotFoundError, PreconditionFailedError, ValidationError } from '@pim/errors';
import { createTestStream, type TestStream } from '@pim/testing';
import { webhooksTestContext, type WebhooksTestContext } from '../testing/webhooks.context';
import { WebhookService } from './webhook.service';

const as = <T>(user: string, fn: () => Promise<T>) =>
  runWithContext({ requestId: `req-${user}`, actor: { user_id: '6740a1b2c3d4e5f601234567', user_name: user } }, fn);
const list = (svc: WebhookService, extra: Partial<Parameters<WebhookService['list']>[0]> = {}) =>
  svc.list({ page: 1, limit: 25, skip: 0, sort: [], filters: [], expand: [], ...extra });

describe('WebhookService (real Postgres + NATS)', () => {
  let ctx: WebhooksTestContext;
  let ds: DataSource;
  let svc: WebhookService;

  beforeAll(async () => {
    ctx = await webhooksTestContext();
    ({ ds, service: svc } = ctx);
  });

  afterAll(async () => {
    await ctx.close();
  });

  beforeEach(async () => {
    await ctx.reset();
  });

  it('upserts by collection: creates once with a secret, then updates the same record', async () => {
    const first = await as('Ana', () => svc.upsert({ collection: 'products', url: 'https://example.com/h' }));
    expect(first.created).toBe(true);
    expect(first.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(first.webhook).toMatchObject({
      collection: 'products',
      url: 'https://example.com/h',
      headers: [],
      body: [],
      enabled: true,
      version: 1,
      created_by_name: 'Ana',
    });

    const again = await svc.upsert({
      collection: 'products',
      url: 'https://example.com/other',
      headers: [{ key: 'X-Token', value: 'abc' }],
    });
    expect(again.created).toBe(false);
    expect(again.secret).toBeUndefined();
    expect(again.webhook._id).toBe(first.webhook._id);
    expect(again.webhook.version).toBe(2);

    // omitted fields keep their values
    const third = await svc.upsert({ collection: 'products', enabled: false });
    expect(third.webhook).toMatchObject({
      url: 'https://example.com/other',
      headers: [{ key: 'X-Token', value: 'abc' }],
      enabled: false,
      version: 3,
    });
    expect((await list(svc)).total).toBe(1);
  });

  it('never duplicates under concurrent upserts of one collection', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => svc.upsert({ collection: 'orders', url: `https://example.com/${i}` })),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.webhook._id)).size).toBe(1);
    expect((await list(svc)).total).toBe(1);
  });

  it('refuses unknown collections, relative URLs and bad pairs, listing every problem', async () => {
    const err = await svc
      .create({ collection: 'nope', url: 'ftp://x', headers: [{ key: 'bad header', value: 'v' }] })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.details.map((d: { field: string }) => d.field).sort()).toEqual(['collection', 'headers.0.key', 'url']);
    expect(err.message).toContain('must be one of');
  });

  it('keeps collection unique among live webhooks; deleting frees it', async () => {
    const { webhook } = await ctx.newWebhook({ collection: 'brands' });
    await expect(svc.create({ collection: 'brands' })).rejects.toBeInstanceOf(ConflictError);
    const deleted = await as('Bia', () => svc.remove(webhook._id));
    expect(deleted.version).toBe(2);
    await expect(svc.get(webhook._id)).rejects.toBeInstanceOf(NotFoundError);
    const raw = await ds.query('SELECT deleted, deleted_by FROM webhooks.webhooks WHERE _id = $1', [webhook._id]);
    expect(raw[0]).toEqual({ deleted: true, deleted_by: 'Bia' });
    await expect(svc.create({ collection: 'brands' })).resolves.toBeDefined();
  });

  it('replaces, merge-patches and checks the expected version atomically', async () => {
    const { webhook } = await ctx.newWebhook({
      collection: 'families',
      url: 'https://a.example/h',
      headers: [{ key: 'A', value: '1' }],
    });
    const replaced = await svc.replace(webhook._id, { collection: 'families' }, 1);
    expect(replaced).toMatchObject({ version: 2, headers: [], enabled: true });
    expect(replaced.url).toBeUndefined();
    await expect(svc.replace(webhook._id, { collection: 'families' }, 1)).rejects.toBeInstanceOf(
      PreconditionFailedError,
    );
    const patched = await svc.patch(webhook._id, { url: 'https://b.example/h', enabled: false });
    expect(patched).toMatchObject({ url: 'https://b.example/h', enabled: false, version: 3 });
    const cleared = await svc.patch(webhook._id, { url: null });
    expect(cleared.url).toBeUndefined();
    await expect(svc.patch(webhook._id, { colour: 'red' })).rejects.toBeInstanceOf(ValidationError);
    const settled = await Promise.allSettled([
      svc.patch(webhook._id, { enabled: true }, 4),
      svc.patch(webhook._id, { enabled: false }, 4),
    ]);
    expect(settled.map((s) => s.status).sort()).toEqual(['fulfilled', 'rejected']);
  });

  it('rejects malformed ids and unknown ids distinctly', async () => {
    await expect(svc.get('xyz')).rejects.toBeInstanceOf(ValidationError);
    await expect(svc.get('6740a1b2c3d4e5f601234567')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('lists with filters, sort, paging and _search', async () => {
    for (const c of ['products', 'orders', 'imports'])
      await svc.create({ collection: c, url: `https://hooks.example/${c}`, enabled: c !== 'orders' });
    const enabled = await list(svc, {
      filters: [{ field: 'enabled', op: 'eq', values: ['true'] }],
      sort: [{ field: 'collection', direction: 'asc' }],
    });
    expect(enabled.total).toBe(2);
    expect(enabled.data.map((w) => w.collection)).toEqual(['imports', 'products']);
    const paged = await list(svc, { limit: 2, page: 2, sort: [{ field: 'created_at', direction: 'desc' }] });
    expect(paged.total).toBe(3);
    expect(paged.data.map((w) => w.collection)).toEqual(['products']);
    const found = await list(svc, { search: 'ORDERS' });
    expect(found.data.map((w) => w.collection)).toEqual(['orders']);
  });

  describe('events', () => {
    let stream: TestStream;
    beforeAll(async () => {
      stream = await createTestStream('webhooks');
    });
    afterAll(async () => {
      await stream.destroy();
    });

    it('writes one event per write in the same transaction, published once to JetStream', async () => {
      const { webhook } = await as('Caio', () => svc.create({ collection: 'catalogs' }));
      await svc.patch(webhook._id, { enabled: false });
      await svc.remove(webhook._id);
      await expect(svc.create({ collection: 'catalogs-nope' })).rejects.toThrow();

      const relay = new OutboxRelay({
        dataSource: ds,
        nc: stream.nc,
        stream: stream.name,
        subjectPrefix: stream.subjectPrefix,
        logger: createLogger({ service: 'test', level: 'silent' }),
        pollMs: 50,
      });
      await relay.start();
      try {
        let msgs = await stream.messages();
        for (let i = 0; i < 100 && msgs.length < 3; i++) {
          await new Promise((r) => setTimeout(r, 50));
          msgs = await stream.messages();
        }
        expect(msgs.map((m) => m.subject)).toEqual([
          `${stream.subjectPrefix}pim.webhooks.webhooks.created`,
          `${stream.subjectPrefix}pim.webhooks.webhooks.updated`,
          `${stream.subjectPrefix}pim.webhooks.webhooks.deleted`,
        ]);
        const created = msgs[0].data as Record<string, unknown>;
        expect(created).toMatchObject({
          type: 'webhooks.created',
          collection: 'webhooks',
          source: 'webhooks',
          actor: { user_name: 'Caio' },
          data: { _id: webhook._id, collection: 'catalogs' },
        });
        expect(JSON.stringify(created)).not.toContain('whsec_');
        expect(msgs[0].msgId).toBe(created.id);
      } finally {
        await relay.stop();
      }
    });
  });
});
