import { createLogger } from '@pim/logging';
import type { EventEnvelope } from '@pim/events';
import { publisherTestContext, type PublisherTestContext } from '../testing/publisher.context';
import { AutoRepublisher } from './auto-republish';

// auto_republish against the real Postgres and a real catalog process: which product changes publish again.
describe('auto-republish (real Postgres, real catalog)', () => {
  let ctx: PublisherTestContext;
  let republisher: AutoRepublisher;
  let n = 0;
  const updated = async (productId: string): Promise<EventEnvelope> => ({
    id: `event-${++n}`,
    type: 'products.updated',
    collection: 'products',
    occurred_at: new Date().toISOString(),
    source: 'catalog',
    actor: null,
    data: await ctx.product(productId),
    schema_version: 1,
  });

  beforeAll(async () => {
    ctx = await publisherTestContext('republish');
    await ctx.newAttribute('color');
    republisher = new AutoRepublisher(ctx.ds, ctx, createLogger({ level: 'silent', service: 'test' }));
  });

  afterAll(async () => ctx?.close());
  beforeEach(async () => ctx.reset());

  /** A product published on a channel with auto_republish, and one without. */
  async function published() {
    const auto = await ctx.newChannel({ auto_republish: true, required_attributes: ['color'] });
    const manual = await ctx.newChannel();
    const product = await ctx.newProduct({ color: 'blue' });
    await ctx.startSender();
    for (const channel of [auto, manual]) {
      const p = await ctx.publications.create({ product_id: product.id, channel_id: channel._id });
      await ctx.waitFor(p._id, (x) => x.status === 'published');
    }
    return { auto, manual, product };
  }

  it('publishes a changed product again on channels with auto_republish only, once per event', async () => {
    const { auto, manual, product } = await published();
    // The catalog recording the outcomes changed where the product is published, not what it is.
    const afterOutcome = await updated(product.id);
    expect([...(await republisher.republish(afterOutcome)).values()]).toEqual(['unchanged']);

    await ctx.setAttributes(product.id, { color: 'red' });
    const change = await updated(product.id);
    const outcomes = await republisher.republish(change);
    expect(outcomes).toEqual(new Map([[auto._id, 'created']]));
    expect(outcomes.has(manual._id)).toBe(false);
    const list = await ctx.publications.list({
      page: 1,
      limit: 10,
      skip: 0,
      sort: [{ field: 'created_at', direction: 'desc' }],
      filters: [{ field: 'origin', op: 'eq', values: ['auto_republish'] }],
      search: undefined,
      expand: [],
    });
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({ channel_id: auto._id, product_snapshot: { attributes: { color: 'red' } } });
    await ctx.waitFor(list.data[0]._id, (p) => p.status === 'published');

    // The same event handed out again, and an older one arriving late, make nothing.
    expect([...(await republisher.republish(change)).values()]).toEqual(['unchanged']);
    expect([...(await republisher.republish({ ...afterOutcome, id: 'late' })).values()]).toEqual(['older']);

    // A batch of events: only those of products a channel with auto_republish lists are looked at.
    const unlisted = await ctx.newProduct({ color: 'grey' });
    await ctx.setAttributes(product.id, { color: 'green' });
    await republisher.handle([await updated(unlisted.id), await updated(product.id)]);
    const again = await ctx.publications.list({
      page: 1,
      limit: 10,
      skip: 0,
      sort: [{ field: 'created_at', direction: 'desc' }],
      filters: [{ field: 'origin', op: 'eq', values: ['auto_republish'] }],
      search: undefined,
      expand: [],
    });
    expect(again.data.map((p) => [p.product_id, (p.product_snapshot.attributes as { color: string }).color])).toEqual([
      [product.id, 'green'],
      [product.id, 'red'],
    ]);
  });

  it('does not publish again a product that no longer has what the channel requires', async () => {
    const { product } = await published();
    await ctx.setAttributes(product.id, { color: null });
    expect([...(await republisher.republish(await updated(product.id))).values()]).toEqual(['not_ready']);
  });
});
