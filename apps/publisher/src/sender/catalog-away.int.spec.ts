import { startAppProcess, type AppProcess } from '@pim/testing';
import { publisherTestContext, type PublisherTestContext } from '../testing/publisher.context';

/** Polls `read` until `done` holds (fails after `timeoutMs` with its last value). */
async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 45_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await read().catch(() => undefined);
    if (v !== undefined && done(v)) return v;
    if (Date.now() > end) throw new Error(`still not there: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// The catalog records an outcome on the product before the publisher writes it; one it did not
// take (it was away) is written all the same and sent again by the late sync.
describe('publication outcomes and the catalog (real Postgres, a real catalog process stopped and started)', () => {
  let ctx: PublisherTestContext;
  let restarted: AppProcess | undefined;

  beforeAll(async () => {
    ctx = await publisherTestContext('catalogaway');
  });

  afterAll(async () => {
    await restarted?.stop();
    await ctx?.close();
  });

  const syncDue = async (id: string): Promise<boolean> =>
    (await ctx.ds.query(`SELECT product_sync_due AS due FROM publications WHERE _id = $1`, [id]))[0].due;

  it('writes an outcome the catalog has already recorded; one it missed is recorded once it is back', async () => {
    const channel = await ctx.newChannel();
    const [first, second] = [await ctx.newProduct(), await ctx.newProduct()];
    const before = await ctx.publications.create({ product_id: first.id, channel_id: channel._id });
    const sender = await ctx.startSender();
    await ctx.waitFor(before._id, (p) => p.status === 'published');
    expect(await ctx.product(first.id)).toMatchObject({ published: true, last_publishment_id: before._id });
    expect(await syncDue(before._id)).toBe(false);
    await sender.stop();

    // Made while the catalog answers (it gives the snapshot), sent while it is away.
    const during = await ctx.publications.create({ product_id: second.id, channel_id: channel._id });
    const port = Number(ctx.catalogProcess.address.split(':').pop());
    await ctx.catalogProcess.stop();
    await ctx.startSender();
    const published = await ctx.waitFor(during._id, (p) => p.status === 'published');
    expect(published.tracking.map((t) => t.status)).toEqual(['PENDING', 'IN_PROGRESS', 'PUBLISHED']);
    expect(await syncDue(during._id)).toBe(true);

    restarted = await startAppProcess(
      'catalog',
      ctx.catalogDb.url,
      { COMPLETENESS_WORKER: 'false' },
      { port, migrate: false },
    );
    expect(
      await until(
        () => ctx.product(second.id),
        (p) => p.published === true,
      ),
    ).toMatchObject({
      published: true,
      last_publishment_id: during._id,
      publishments: [{ channel: channel.code, status: 'PUBLISHED' }],
    });
    await until(
      () => syncDue(during._id),
      (due) => due === false,
    );
  });
});
