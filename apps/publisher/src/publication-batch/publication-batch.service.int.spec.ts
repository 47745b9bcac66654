import { NotFoundError, ValidationError } from '@pim/errors';
import { runWithContext } from '@pim/logging';
import type { ListQuery } from '@pim/query';
import type { PublicationBatchView, PublicationView } from '@pim/resources';
import { publisherTestContext, type PublisherTestContext } from '../testing/publisher.context';

const ANA = '6740a1b2c3d4e5f6000000a1';
const G1 = 'aaaaaaaaaaaaaaaaaaaaaaa1';
const G2 = 'aaaaaaaaaaaaaaaaaaaaaaa2';
const BOB = '6740a1b2c3d4e5f6000000b2';
/** Runs a call as a user: restricted by the users groups `groups`, or seeing every product with `all`. */
const asUser = <T>(user_id: string, groups: string[] | 'all', fn: () => Promise<T>) =>
  runWithContext(
    {
      requestId: 'test',
      actor: {
        user_id,
        access: { user_id, all_products: groups === 'all', groups: groups === 'all' ? [] : groups },
      },
    },
    fn,
  );
const everything = (limit = 100): ListQuery => ({
  page: 1,
  limit,
  skip: 0,
  sort: [{ field: '_id', direction: 'asc' }],
  filters: [],
  search: undefined,
  expand: [],
});

// Publication batches against the real Postgres and a real catalog process: filters, pages, refusals, resumption.
describe('publication batches (real Postgres, real catalog)', () => {
  let ctx: PublisherTestContext;

  beforeAll(async () => {
    ctx = await publisherTestContext('batches');
    await ctx.newAttribute('color');
  });

  afterAll(async () => ctx?.close());
  beforeEach(async () => ctx.reset());

  const until = async (id: string, timeoutMs = 20_000): Promise<PublicationBatchView> => {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const b = await ctx.batches.get(id);
      if (b.status === 'completed' || b.status === 'failed') return b;
      if (Date.now() > end) throw new Error(`batch ${id} is still ${b.status}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const ofBatch = async (batchId: string): Promise<PublicationView[]> =>
    (
      await ctx.publications.list({
        page: 1,
        limit: 100,
        skip: 0,
        sort: [{ field: '_id', direction: 'asc' }],
        filters: [{ field: 'batch_id', op: 'eq', values: [batchId] }],
        search: undefined,
        expand: [],
      })
    ).data;

  it('publishes every product the filters select, page by page, refusing those not ready, and the sender sends them', async () => {
    const channel = await ctx.newChannel({ required_attributes: ['color'] });
    const ready = [];
    for (let i = 0; i < 7; i++) ready.push(await ctx.newProduct({ color: `c${i}` }));
    const notReady = await ctx.newProduct();
    const disabled = await ctx.newProduct({ color: 'x' });
    await ctx.setAttributes(disabled.id, { color: 'y' });
    const batch = await ctx.batches.create({ channel_id: channel._id, filters: { _id_nin: disabled.id } });
    expect(batch).toMatchObject({ status: 'pending', publications_count: 0 });
    await ctx.startRunner({ pageSize: 3 });
    const done = await until(batch._id);
    expect(done).toMatchObject({
      status: 'completed',
      products_count: 8,
      publications_count: 7,
      refused_count: 1,
      refusals: [
        {
          product_id: notReady.id,
          code: notReady.code,
          message: expect.stringContaining("requires a value of 'color'"),
        },
      ],
    });
    const made = await ofBatch(batch._id);
    expect(made.map((p) => p.product_id).sort()).toEqual(ready.map((p) => p.id).sort());
    expect(made.every((p) => p.origin === 'bulk' && p.status === 'ready_to_publish')).toBe(true);
    const events = (await ctx.events()).map((e) => e.type);
    expect(events.filter((t) => t === 'publications.created')).toHaveLength(7);
    expect(events.filter((t) => t.startsWith('publication_batches.'))).toEqual([
      'publication_batches.created',
      'publication_batches.updated',
      'publication_batches.updated',
      'publication_batches.updated',
      'publication_batches.completed',
    ]);
    await ctx.startSender();
    for (const p of made) await ctx.waitFor(p._id, (x) => x.status === 'published');
    expect(ctx.receiver.requests).toHaveLength(7);

    // A second batch of the same products supersedes nothing sent, and publishes them again.
    const again = await ctx.batches.create({
      channel_id: channel._id,
      filters: { _id_in: ready.map((p) => p.id).join(',') },
    });
    expect(await until(again._id)).toMatchObject({ status: 'completed', products_count: 7, publications_count: 7 });
  });

  it('shows a restricted user only the batches they created: others are absent from lists and totals and a 404 by id', async () => {
    const channel = await ctx.newChannel();
    const seen = await ctx.newProduct({}, [G1]);
    const anas = await asUser(ANA, [G1], () =>
      ctx.batches.create({ channel_id: channel._id, filters: { _id: seen.id } }),
    );
    const bobs = await asUser(BOB, [G2], () => ctx.batches.create({ channel_id: channel._id }));
    const unrestricted = await ctx.batches.create({ channel_id: channel._id });
    const all = [anas._id, bobs._id, unrestricted._id];

    const listed = await asUser(ANA, [G1], () => ctx.batches.list(everything()));
    expect([listed.total, listed.data.map((b) => b._id)]).toEqual([1, [anas._id]]);
    expect((await asUser(ANA, [G1], () => ctx.batches.batchGet(all, []))).map((b) => b._id)).toEqual([anas._id]);
    expect((await asUser(BOB, 'all', () => ctx.batches.list(everything(1)))).total).toBe(3);
    expect((await ctx.batches.list(everything())).total).toBe(3);

    for (const id of [bobs._id, unrestricted._id])
      for (const call of [() => ctx.batches.get(id), () => ctx.batches.remove(id)]) {
        const err = await asUser(ANA, [G1], call).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(NotFoundError);
        expect(err).toMatchObject({ message: `No publication batch with _id '${id}'` });
      }
    expect(await ctx.batches.get(bobs._id)).toMatchObject({ status: 'pending', version: bobs.version });

    // Her batch runs as her and she follows it to the end.
    await ctx.startRunner();
    await until(anas._id);
    expect(await asUser(ANA, [G1], () => ctx.batches.get(anas._id))).toMatchObject({
      status: 'completed',
      products_count: 1,
      publications_count: 1,
    });
  });

  it('refuses filters the product list does not take and a disabled channel, and fails a batch whose channel goes away', async () => {
    const channel = await ctx.newChannel();
    const err = await ctx.batches
      .create({ channel_id: channel._id, filters: { nonsense: 'x' } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).details?.[0].field).toBe('filters.nonsense');
    const off = await ctx.newChannel({ enabled: false });
    await expect(ctx.batches.create({ channel_id: off._id })).rejects.toThrow('is disabled');

    await ctx.newProduct();
    const batch = await ctx.batches.create({ channel_id: channel._id });
    await ctx.channels.remove(channel._id);
    await ctx.startRunner();
    expect(await until(batch._id)).toMatchObject({
      status: 'failed',
      error: 'The channel was deleted while the batch ran',
    });
  });
});
