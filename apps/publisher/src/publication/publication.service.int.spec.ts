import { Registry } from 'prom-client';
import { ConflictError, NotFoundError, ValidationError } from '@pim/errors';
import { runWithContext } from '@pim/logging';
import { AddressPolicy } from '@pim/outbound';
import { publisherTestContext, type PublisherTestContext } from '../testing/publisher.context';

const steps = (p: { tracking: { status: string }[] }) => p.tracking.map((t) => t.status);

/** Runs a call as a user restricted by users groups: they see the products those groups see (docs/decisions/access.md). */
const asRestricted = <T>(groups: string[], fn: () => Promise<T>) => {
  const user_id = '6740a1b2c3d4e5f6000000a1';
  return runWithContext(
    { requestId: 'test', actor: { user_id, access: { user_id, all_products: false, groups } } },
    fn,
  );
};

// Publications against the real Postgres and a real catalog process, sent to a local receiver.
describe('publications (real Postgres, real catalog, a local channel)', () => {
  let ctx: PublisherTestContext;

  beforeAll(async () => {
    ctx = await publisherTestContext('publications');
    await ctx.newAttribute('color');
    await ctx.newAttribute('care', true);
  });

  afterAll(async () => ctx?.close());
  beforeEach(async () => ctx.reset());

  it('refuses a product the channel is not ready for, naming each missing attribute, and unknown records', async () => {
    const channel = await ctx.newChannel({ required_attributes: ['color', 'care'], language: 'pt-BR' });
    const product = await ctx.newProduct({ care: { en: 'Hand wash' } });
    const err = await ctx.publications
      .create({ product_id: product.id, channel_id: channel._id })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).details?.map((d) => d.field)).toEqual(['attributes.color', 'attributes.care']);
    expect((err as ValidationError).message).toContain("requires a value of 'color'");
    await expect(
      ctx.publications.create({ product_id: '6740a1b2c3d4e5f601234567', channel_id: channel._id }),
    ).rejects.toThrow("No live product with _id '6740a1b2c3d4e5f601234567'");
    await expect(
      ctx.publications.create({ product_id: product.id, channel_id: '6740a1b2c3d4e5f601234567' }),
    ).rejects.toThrow('No live channel');
    const disabled = await ctx.newChannel({ enabled: false });
    await expect(ctx.publications.create({ product_id: product.id, channel_id: disabled._id })).rejects.toThrow(
      'is disabled',
    );
    expect(await ctx.events()).toEqual([
      expect.objectContaining({ type: 'channels.created' }),
      expect.objectContaining({ type: 'channels.created' }),
    ]);
  });

  it('publishes the mapped payload, ends published with the listing URL, and the catalog product shows it', async () => {
    ctx.receiver.answer(() => ({
      status: 201,
      headers: { location: 'https://shop.example.com/p/1' },
      body: '{"id":"1"}',
    }));
    const channel = await ctx.newChannel({
      required_attributes: ['color'],
      language: 'pt-BR',
      mapping: [
        { field: 'title', source: 'name' },
        { field: 'sku', source: 'code' },
        { field: 'details.color', source: 'attributes.color' },
      ],
      endpoint: { url: ctx.receiver.url, headers: [{ key: 'X-Shop-Token', value: 'secret-token-1234' }] },
    });
    const product = await ctx.newProduct({ color: 'blue' });
    const created = await ctx.publications.create({ product_id: product.id, channel_id: channel._id });
    expect(created).toMatchObject({ status: 'ready_to_publish', origin: 'api', attempts: 0 });
    expect(created.product_snapshot).toMatchObject({
      _id: product.id,
      code: product.code,
      attributes: { color: 'blue' },
    });
    expect(steps(created)).toEqual(['PENDING']);

    await ctx.startSender();
    const done = await ctx.waitFor(created._id, (p) => p.status === 'published');
    expect(steps(done)).toEqual(['PENDING', 'IN_PROGRESS', 'PUBLISHED']);
    expect(done).toMatchObject({
      publishment_url: 'https://shop.example.com/p/1',
      published_payload: {
        title: `Produto ${product.code.split('-').pop()}`,
        sku: product.code,
        details: { color: 'blue' },
      },
      attempts: 1,
    });
    const [req] = ctx.receiver.requests;
    expect(req.method).toBe('POST');
    expect(req.headers['x-shop-token']).toBe('secret-token-1234');
    expect(req.headers['idempotency-key']).toBe(created._id);
    expect(JSON.parse(req.body)).toEqual(done.published_payload);

    // The catalog records the outcome on the product (the sender asks it right after the outcome).
    const until = Date.now() + 10_000;
    let shown = await ctx.product(product.id);
    while (!shown.published && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 50));
      shown = await ctx.product(product.id);
    }
    expect(shown).toMatchObject({
      published: true,
      last_publishment_id: created._id,
      publishments: [{ channel: channel.code, status: 'PUBLISHED', published_at: expect.any(String) }],
    });
    const types = (await ctx.events()).map((e) => e.type).filter((t) => t.startsWith('publications.'));
    expect(types).toEqual(['publications.created', 'publications.status_changed', 'publications.status_changed']);
  });

  it('fails with the channel message on a 422, and a retry after the channel is fixed publishes', async () => {
    ctx.receiver.answer(() => ({
      status: 422,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'category is required' }),
    }));
    const channel = await ctx.newChannel();
    const product = await ctx.newProduct();
    const created = await ctx.publications.create({ product_id: product.id, channel_id: channel._id });
    await ctx.startSender();
    const failed = await ctx.waitFor(created._id, (p) => p.status === 'failed');
    expect(failed.tracking.at(-1)).toMatchObject({
      status: 'FAILED',
      message: 'The channel answered 422: category is required',
      data: expect.arrayContaining(['http_status=422']),
    });
    expect(ctx.receiver.requests).toHaveLength(1); // a 4xx is not retried
    expect((await ctx.product(product.id)).published).toBe(false);
    await expect(ctx.moves.retry(created._id, 1)).rejects.toThrow('version');

    ctx.receiver.answer(() => ({ status: 200, body: JSON.stringify({ url: 'https://shop.example.com/p/2' }) }));
    const again = await ctx.moves.retry(created._id);
    expect(again).toMatchObject({ status: 'ready_to_publish', attempts: 0 });
    const published = await ctx.waitFor(created._id, (p) => p.status === 'published');
    expect(published.publishment_url).toBe('https://shop.example.com/p/2');
    expect(steps(published)).toEqual(['PENDING', 'IN_PROGRESS', 'FAILED', 'PENDING', 'IN_PROGRESS', 'PUBLISHED']);
    const err = await ctx.moves.retry(created._id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect((err as ConflictError).message).toBe(
      `Publication '${created._id}' is published: only a failed publication is retried (from published to ready_to_publish)`,
    );
  });

  it('retries a channel that times out or answers 5xx, with a growing delay, then publishes; gives up after the schedule', async () => {
    ctx.receiver.answer((_req, n) =>
      n === 1 ? { status: 200, delayMs: 1_500 } : n === 2 ? { status: 503, body: 'busy' } : { status: 201 },
    );
    const channel = await ctx.newChannel({ endpoint: { url: ctx.receiver.url, timeout_ms: 300 } });
    const product = await ctx.newProduct();
    const created = await ctx.publications.create({ product_id: product.id, channel_id: channel._id });
    const metrics = new Registry();
    await ctx.startSender({ schedule: [200, 400, 800], metrics });
    const done = await ctx.waitFor(created._id, (p) => p.status === 'published');
    expect(steps(done)).toEqual([
      'PENDING',
      'IN_PROGRESS',
      'PENDING',
      'IN_PROGRESS',
      'PENDING',
      'IN_PROGRESS',
      'PUBLISHED',
    ]);
    expect(done.tracking[2].message).toMatch(/^The channel did not answer within 300 ms; the next attempt is at /);
    expect(done.tracking[4].message).toMatch(/^The channel answered 503: busy; the next attempt is at /);
    const at = (i: number) => Date.parse(done.tracking[i].created_at);
    expect(at(3) - at(2)).toBeGreaterThanOrEqual(150);
    expect(at(5) - at(4)).toBeGreaterThanOrEqual(350);
    expect(done.attempts).toBe(3);

    ctx.receiver.answer(() => ({ status: 500, body: 'down' }));
    const second = await ctx.publications.create({ product_id: (await ctx.newProduct()).id, channel_id: channel._id });
    const failed = await ctx.waitFor(second._id, (p) => p.status === 'failed');
    expect(failed.tracking.at(-1)!.message).toBe('The channel answered 500: down (gave up after 4 attempts)');
    // Each outcome the sender wrote: 2 + 3 retries, one published, one failed for good.
    const counted = (outcome: string) =>
      metrics
        .metrics()
        .then((t) =>
          Number(
            t.match(new RegExp(`^pim_publisher_publications_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm'))?.[1] ?? 0,
          ),
        );
    expect({
      published: await counted('published'),
      retried: await counted('retried'),
      failed: await counted('failed'),
    }).toEqual({
      published: 1,
      retried: 5,
      failed: 1,
    });
  });

  it('fails at once, without a request, when the address the channel resolves to is refused when sending', async () => {
    // The channel was accepted under an allow list; the sender's policy (the operator narrowed it) refuses loopback.
    const channel = await ctx.newChannel();
    const created = await ctx.publications.create({ product_id: (await ctx.newProduct()).id, channel_id: channel._id });
    await ctx.startSender({}, new AddressPolicy([], { subject: 'channels', setting: 'PUBLISHER_ALLOWED_TARGETS' }));
    const failed = await ctx.waitFor(created._id, (p) => p.status === 'failed');
    expect(failed.tracking.at(-1)!.message).toMatch(/^The channel's address is refused: .*loopback address/);
    expect(failed.attempts).toBe(1);
    expect(ctx.receiver.requests).toHaveLength(0);
  });

  it('supersedes an older waiting publication of the same product and channel; the older one cannot be retried', async () => {
    const channel = await ctx.newChannel();
    const product = await ctx.newProduct();
    const first = await ctx.publications.create({ product_id: product.id, channel_id: channel._id });
    const second = await ctx.publications.create({ product_id: product.id, channel_id: channel._id });
    expect(second.advertisement_id).toBe(first.advertisement_id);
    const old = await ctx.publications.get(first._id);
    expect(old.status).toBe('failed');
    expect(old.tracking.at(-1)).toMatchObject({
      status: 'FAILED',
      message: expect.stringContaining(`Superseded by publication ${second._id}`),
    });
    const err = await ctx.moves.retry(first._id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect((err as ConflictError).message).toContain('a newer publication of this product on this channel exists');
    await ctx.startSender();
    await ctx.waitFor(second._id, (p) => p.status === 'published');
    expect(ctx.receiver.requests).toHaveLength(1);
  });

  it('lets another sender take a publication over once its lease ran out; the first sender writes nothing then', async () => {
    const channel = await ctx.newChannel();
    const created = await ctx.publications.create({ product_id: (await ctx.newProduct()).id, channel_id: channel._id });
    const [mine] = await ctx.repository.claim(10, 50, 'sender-a');
    expect(mine._id).toBe(created._id);
    expect(await ctx.repository.claim(10, 50, 'sender-b')).toEqual([]); // leased
    await new Promise((r) => setTimeout(r, 100));
    const [theirs] = await ctx.repository.claim(10, 60_000, 'sender-b');
    expect(theirs).toMatchObject({ _id: created._id, attempts: 2 });
    const lost = await ctx.repository.complete('sender-a', new Map([[created._id, async () => 'status_changed']]));
    expect(lost).toEqual([]);
    expect((await ctx.publications.get(created._id)).status).toBe('publishing');
  });

  it('keeps a restricted user to the publications of products they see: lists and totals filtered, the others a 404 to read, delete or retry', async () => {
    const G1 = '6740a1b2c3d4e5f6000000f1';
    const channel = await ctx.newChannel();
    const [seen, hidden] = [await ctx.newProduct({}, [G1]), await ctx.newProduct({}, [])];
    const publish = (productId: string) => ctx.publications.create({ product_id: productId, channel_id: channel._id });
    const mine = await publish(seen.id);
    const superseded = await publish(hidden.id);
    const theirs = await publish(hidden.id);
    const query = { page: 1, limit: 10, skip: 0, sort: [], filters: [], expand: [] };
    const listed = await asRestricted([G1], () => ctx.publications.list(query));
    expect([listed.total, listed.data.map((p) => p._id)]).toEqual([1, [mine._id]]);
    const byProduct = await asRestricted([G1], () =>
      ctx.publications.list({ ...query, filters: [{ field: 'product_id', op: 'eq', values: [hidden.id] }] }),
    );
    expect(byProduct.total).toBe(0);
    expect((await asRestricted([], () => ctx.publications.list(query))).total).toBe(0);
    expect(
      (await asRestricted([G1], () => ctx.publications.batchGet([mine._id, theirs._id], []))).map((p) => p._id),
    ).toEqual([mine._id]);

    // Each would otherwise be a 409 (a newer publication exists; not failed): the 404 answers first.
    for (const call of [
      () => ctx.publications.get(theirs._id),
      () => ctx.publications.remove(theirs._id),
      () => ctx.moves.retry(theirs._id),
      () => ctx.moves.retry(superseded._id),
    ]) {
      const err = await asRestricted([G1], call).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NotFoundError);
    }
    // Creating one for a product out of sight is refused like an unknown product.
    const made = await asRestricted([G1], () => publish(hidden.id)).catch((e: unknown) => e);
    expect(made).toBeInstanceOf(ValidationError);
    expect((made as ValidationError).message).toBe(`No live product with _id '${hidden.id}'`);
    expect(await ctx.publications.get(theirs._id)).toMatchObject({ version: 1, status: 'ready_to_publish' });
    expect((await asRestricted([G1], () => publish(seen.id))).product_id).toBe(seen.id);
  });
});
