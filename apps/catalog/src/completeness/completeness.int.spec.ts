import 'reflect-metadata';
import { createLogger } from '@pim/logging';
import { parseListQuery } from '@pim/query';
import { productListDecl, type ProductView } from '@pim/resources';
import { useCatalogContext, type CatalogTestContext } from '../testing/catalog.context';
import { CompletenessWorker, type CompletenessWorkerOptions } from './completeness.worker';

const logger = createLogger({ service: 'catalog-completeness-test', level: 'silent' });

// The background recompute of stored completeness against the real Postgres: jobs recorded by
// attribute and family writes, the worker's batches, versions, renderings and events.
describe('completeness recompute (real Postgres)', () => {
  let ctx: CatalogTestContext;
  useCatalogContext((c) => (ctx = c));
  const workers: CompletenessWorker[] = [];

  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
  });

  const worker = (opts: Partial<CompletenessWorkerOptions> = {}) => {
    const w = new CompletenessWorker({ dataSource: ctx.ds, logger, settleMaxMs: 2_000, ...opts });
    workers.push(w);
    return w;
  };
  const products = () => ctx.services.products;
  const list = async (params: Record<string, string>) =>
    (await products().list(parseListQuery(productListDecl, { sort: 'code', ...params }))).data.map((p) => p.code);
  const get = (p: ProductView) => products().get(p._id);
  const getJson = async (p: ProductView) => JSON.parse((await products().getJson(p._id)).json) as ProductView;
  const jobs = async () =>
    (await ctx.ds.query(
      `SELECT "cause", "after_id", "attempts", "products_updated" FROM catalog.completeness_jobs ORDER BY "created_at", "id"`,
    )) as { cause: string; after_id: string | null; attempts: number; products_updated: number }[];
  /** The products.updated events since `since` (an event count), by product code. */
  const updatedEvents = async (since: number) =>
    (await ctx.events())
      .slice(since)
      .filter((e) => e.type === 'products.updated')
      .map((e) => (e.data as ProductView).code)
      .sort();
  const eventCount = async () => (await ctx.events()).length;

  /** Polls (bounded) until the check passes; the worker runs in the background. */
  async function eventually(check: () => Promise<void>, timeoutMs = 10_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      try {
        return await check();
      } catch (err) {
        if (Date.now() > until) throw err;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  it('recomputes the products of a group when an attribute becomes required there, and again when it becomes optional', async () => {
    const group = (await ctx.newAttributeGroup())._id;
    const other = (await ctx.newAttributeGroup())._id;
    await ctx.newAttribute({ key: 'brand_line', groups: [{ _id: group, required: true }] });
    const color = await ctx.newAttribute({ key: 'color', groups: [{ _id: group }] });
    const family = (await ctx.newFamily({ attribute_groups: [group] }))._id;
    const lacking = await ctx.newProduct({
      code: 'lacking',
      name: { en: 'Lacking', pt: 'Falta' },
      attribute_groups: [group],
      attributes: { brand_line: 'x' },
    });
    const full = await ctx.newProduct({
      code: 'full',
      attribute_groups: [group],
      attributes: { brand_line: 'x', color: 'red' },
    });
    const byFamily = await ctx.newProduct({ code: 'by_family', family_id: family, attributes: { brand_line: 'x' } });
    const outside = await ctx.newProduct({ code: 'outside', attribute_groups: [other] });
    expect(lacking.completeness).toEqual({ en: 100, pt: 100 });

    const w = worker({ pollMs: 60_000 });
    await w.start();
    const before = await eventCount();
    await ctx.services.attributes.patch(color._id, { groups: [{ _id: group, required: true }] });
    // Only NOTIFY can wake the worker this soon (its poll is a minute).
    await eventually(async () => expect(await list({ completeness_min_lt: '100' })).toEqual(['by_family', 'lacking']));

    expect(await get(lacking)).toMatchObject({ completeness: { en: 50, pt: 50 }, version: 2 });
    const json = await getJson(lacking);
    expect(json).toMatchObject({ completeness: { en: 50, pt: 50 }, version: 2 });
    expect(json.updated_at).toBe((await get(lacking)).updated_at);
    expect(json.updated_at > lacking.updated_at).toBe(true);
    expect(await getJson(byFamily)).toMatchObject({ completeness: { en: 50 }, version: 2 });
    expect(await get(full)).toMatchObject({ completeness: { en: 100 }, version: 1 });
    expect(await get(outside)).toMatchObject({ completeness: { en: 100 }, version: 1 });
    // The snapshot stays what the product's own write took.
    expect((await get(lacking)).attributes_schema_snapshot).toMatchObject({ color: { required: false } });
    expect(await updatedEvents(before)).toEqual(['by_family', 'lacking']);
    const events = (await ctx.events()).slice(before).filter((e) => (e.data as ProductView).code === 'lacking');
    expect(events.map((e) => e.data)).toEqual([json]);
    await eventually(async () => expect(await jobs()).toEqual([]));

    const middle = await eventCount();
    await ctx.services.attributes.patch(color._id, { groups: [{ _id: group, required: false }] });
    await eventually(async () => expect(await list({ completeness_min_lt: '100' })).toEqual([]));
    expect(await getJson(lacking)).toMatchObject({ completeness: { en: 100, pt: 100 }, version: 3 });
    expect(await get(byFamily)).toMatchObject({ completeness: { en: 100 }, version: 3 });
    expect(await get(full)).toMatchObject({ version: 1 });
    expect(await updatedEvents(middle)).toEqual(['by_family', 'lacking']);
  });

  it("recomputes a family's products when it requires an attribute, and when it stops requiring it", async () => {
    const size = await ctx.newAttribute({ key: 'size' });
    const family = await ctx.newFamily({ attributes: [{ _id: size._id, required: false }] });
    const lacking = await ctx.newProduct({ code: 'lacking', family_id: family._id });
    const holding = await ctx.newProduct({ code: 'holding', family_id: family._id, attributes: { size: 'L' } });
    const elsewhere = await ctx.newProduct({ code: 'elsewhere' });
    // A change of the family's name alone records no job.
    await ctx.services.families.patch(family._id, { name: { en: 'Renamed' } });
    expect(await jobs()).toEqual([]);

    const before = await eventCount();
    await ctx.services.families.patch(family._id, { attributes: [{ _id: size._id, required: true }] });
    expect(await jobs()).toEqual([
      expect.objectContaining({ cause: `families.updated ${family._id}`, after_id: null, attempts: 0 }),
    ]);
    expect(await worker().runOnce()).toEqual({ jobs: 1, updated: 1 });
    expect(await get(lacking)).toMatchObject({ completeness: { en: 0 }, version: 2 });
    expect(await getJson(lacking)).toMatchObject({ completeness: { en: 0 }, version: 2 });
    expect(await get(holding)).toMatchObject({ completeness: { en: 100 }, version: 1 });
    expect(await get(elsewhere)).toMatchObject({ version: 1 });
    expect(await list({ completeness_min_lt: '100' })).toEqual(['lacking']);
    expect(await updatedEvents(before)).toEqual(['lacking']);
    expect(await jobs()).toEqual([]);

    await ctx.services.families.patch(family._id, { attributes: [{ _id: size._id, required: false }] });
    expect(await worker().runOnce()).toEqual({ jobs: 1, updated: 1 });
    expect(await get(lacking)).toMatchObject({ completeness: { en: 100 }, version: 3 });
    // Running again finds nothing to do.
    expect(await worker().runOnce()).toEqual({ jobs: 0, updated: 0 });
  });

  it("follows an attribute's own required flag through its category links, and its delete", async () => {
    const category = (await ctx.newCategory())._id;
    const weight = await ctx.newAttribute({ key: 'weight', type: 'number', categories: [{ _id: category }] });
    const lacking = await ctx.newProduct({ code: 'lacking', categories: [category] });
    await ctx.services.attributes.patch(weight._id, { required: true });
    expect(await worker().runOnce()).toEqual({ jobs: 1, updated: 1 });
    expect(await get(lacking)).toMatchObject({ completeness: { en: 0 }, version: 2 });

    // No product holds a value of it, so it may go; the products it was required for are complete again.
    await ctx.services.attributes.remove(weight._id);
    expect(await jobs()).toEqual([expect.objectContaining({ cause: `attributes.deleted ${weight._id}` })]);
    expect(await worker().runOnce()).toEqual({ jobs: 1, updated: 1 });
    expect(await getJson(lacking)).toMatchObject({ completeness: { en: 100 }, version: 3 });
  });

  it('records no job for changes that cannot change completeness', async () => {
    const group = (await ctx.newAttributeGroup())._id;
    const optional = await ctx.newAttribute({ key: 'note', groups: [{ _id: group }] });
    await ctx.services.attributes.patch(optional._id, { name: { en: 'Note' }, sequence: 3 });
    await ctx.services.attributeGroups.patch(group, { name: { en: 'Renamed' } });
    expect(await jobs()).toEqual([]);
    await ctx.newAttribute({ key: 'must', groups: [{ _id: group, required: true }] });
    expect(await jobs()).toEqual([expect.objectContaining({ cause: expect.stringMatching(/^attributes\.created /) })]);
  });

  it('keeps a job whose worker stops before the end; the next worker finishes it, each product changed once', async () => {
    const group = (await ctx.newAttributeGroup())._id;
    const color = await ctx.newAttribute({ key: 'color', groups: [{ _id: group }] });
    const made: ProductView[] = [];
    for (let i = 0; i < 5; i++) made.push(await ctx.newProduct({ code: `p${i}`, attribute_groups: [group] }));
    const before = await eventCount();
    await ctx.services.attributes.patch(color._id, { groups: [{ _id: group, required: true }] });

    let firstBatch!: () => void;
    const reachedFirstBatch = new Promise<void>((resolve) => (firstBatch = resolve));
    let letGo!: () => void;
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    const first = worker({ batchSize: 2, pollMs: 60_000, onBatch: () => (firstBatch(), gate) });
    await first.start();
    await reachedFirstBatch;
    const stopped = first.stop();
    letGo();
    await stopped;

    const [job] = await jobs();
    expect(job).toMatchObject({ attempts: 1, products_updated: 2 });
    expect(job.after_id).toBe([...made].sort((a, b) => (a._id < b._id ? -1 : 1))[1]._id);
    expect(await list({ completeness_min_lt: '100' })).toHaveLength(2);

    expect(await worker({ batchSize: 2 }).runOnce()).toEqual({ jobs: 1, updated: 3 });
    expect(await list({ completeness_min_lt: '100' })).toEqual(['p0', 'p1', 'p2', 'p3', 'p4']);
    expect(await updatedEvents(before)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4']);
    for (const p of made) expect(await get(p)).toMatchObject({ completeness: { en: 0 }, version: 2 });
    expect(await jobs()).toEqual([]);
    // Run again: nothing left, nothing rewritten.
    expect(await worker({ batchSize: 2 }).runOnce()).toEqual({ jobs: 0, updated: 0 });
    expect(await updatedEvents(before)).toHaveLength(5);
  });

  it('takes over a job whose worker vanished once its lease runs out, and redoes nothing already done', async () => {
    const group = (await ctx.newAttributeGroup())._id;
    const color = await ctx.newAttribute({ key: 'color', groups: [{ _id: group }] });
    for (let i = 0; i < 3; i++) await ctx.newProduct({ code: `p${i}`, attribute_groups: [group] });
    await ctx.services.attributes.patch(color._id, { groups: [{ _id: group, required: true }] });
    // A worker that took the job and died: its lease is held, nothing was written.
    await ctx.ds.query(
      `UPDATE catalog.completeness_jobs SET "lease_token" = 'aaaaaaaaaaaaaaaaaaaaaaaa', "lease_until" = now() + interval '1 hour', "attempts" = 1`,
    );
    expect(await worker().runOnce()).toEqual({ jobs: 0, updated: 0 });
    await ctx.ds.query(`UPDATE catalog.completeness_jobs SET "lease_until" = now() - interval '1 second'`);
    expect(await worker().runOnce()).toEqual({ jobs: 1, updated: 3 });
    expect(await list({ completeness_min_lt: '100' })).toEqual(['p0', 'p1', 'p2']);
  });

  it('leaves alone a product whose own write, after the change, recomputed it', async () => {
    const group = (await ctx.newAttributeGroup())._id;
    const color = await ctx.newAttribute({ key: 'color', groups: [{ _id: group }] });
    const p = await ctx.newProduct({ code: 'p', attribute_groups: [group] });
    await ctx.services.attributes.patch(color._id, { groups: [{ _id: group, required: true }] });
    // The user fills the value between the change and the worker's batch.
    await products().patch(p._id, { attributes: { color: 'red' } });
    const before = await eventCount();
    expect(await worker().runOnce()).toEqual({ jobs: 1, updated: 0 });
    expect(await get(p)).toMatchObject({ completeness: { en: 100 }, version: 2, attributes: { color: 'red' } });
    expect(await updatedEvents(before)).toEqual([]);
  });

  it('never overwrites a concurrent write with what it read before; it reads the product again and recomputes it', async () => {
    const group = (await ctx.newAttributeGroup())._id;
    const color = await ctx.newAttribute({ key: 'color', groups: [{ _id: group }] });
    const p0 = await ctx.newProduct({ code: 'p0', attribute_groups: [group] });
    const p1 = await ctx.newProduct({ code: 'p1', attribute_groups: [group] });
    const [first, second] = [p0, p1].sort((a, b) => (a._id < b._id ? -1 : 1));
    await ctx.services.attributes.patch(color._id, { groups: [{ _id: group, required: true }] });
    const before = await eventCount();

    // After the first batch, a writer that read the old definitions holds the second product's
    // row: it stores tags and a completeness of 100 and has not committed yet.
    const writer = ctx.ds.createQueryRunner();
    await writer.connect();
    let held = false;
    const w = worker({
      batchSize: 1,
      onBatch: async (_, updated) => {
        if (updated === 0 || held) return;
        held = true;
        await writer.startTransaction();
        await writer.query(
          `UPDATE catalog.products SET "tags" = '{late}', "completeness" = '{"en": 100}', "completeness_min" = 100, "version" = "version" + 1 WHERE "_id" = $1`,
          [second._id],
        );
      },
    });
    const running = w.runOnce();
    try {
      // The worker's UPDATE of the second product waits for that row lock.
      await eventually(async () => {
        const [{ n }] = await ctx.ds.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE "datname" = current_database() AND "wait_event_type" = 'Lock'`,
        );
        expect(n).toBe(1);
      });
      await writer.commitTransaction();
    } finally {
      await writer.release();
    }
    expect(await running).toEqual({ jobs: 1, updated: 2 });
    expect(await get(first)).toMatchObject({ completeness: { en: 0 }, version: 2 });
    // The writer's change stays, and the completeness it stored from old definitions is fixed.
    expect(await get(second)).toMatchObject({ tags: ['late'], completeness: { en: 0 }, version: 3 });
    expect(await getJson(second)).toMatchObject({ tags: ['late'], completeness: { en: 0 }, version: 3 });
    expect(await updatedEvents(before)).toEqual(['p0', 'p1']);
  });

  it('waits for transactions open when it took the job, so a product they create from old definitions is fixed too', async () => {
    const group = (await ctx.newAttributeGroup())._id;
    const color = await ctx.newAttribute({ key: 'color', groups: [{ _id: group }] });
    const p = await ctx.newProduct({ code: 'p', attribute_groups: [group] });
    await ctx.services.attributes.patch(color._id, { groups: [{ _id: group, required: true }] });
    // A create that read the definitions before the change and has not committed yet.
    const writer = ctx.ds.createQueryRunner();
    await writer.connect();
    const late = 'ffffffffffffffffffffff01';
    let running: Promise<unknown> | undefined;
    try {
      await writer.startTransaction();
      // Stored columns only: the generated search_folded is computed by Postgres.
      const [{ cols }]: { cols: string }[] = await writer.query(
        `SELECT string_agg(quote_ident(column_name), ', ' ORDER BY ordinal_position) AS cols FROM information_schema.columns WHERE table_schema = 'catalog' AND table_name = 'products' AND is_generated = 'NEVER'`,
      );
      await writer.query(
        `INSERT INTO catalog.products (${cols}) SELECT ${cols} FROM jsonb_populate_record(NULL::catalog.products, (SELECT to_jsonb(p) || jsonb_build_object('_id', $1::text, 'code', 'late') FROM catalog.products p WHERE p."_id" = $2))`,
        [late, p._id],
      );
      running = worker().runOnce();
      await eventually(async () => expect(await jobs()).toEqual([expect.objectContaining({ attempts: 1 })]));
      await writer.commitTransaction();
    } finally {
      await writer.release();
    }
    expect(await running).toEqual({ jobs: 1, updated: 2 });
    expect(await products().get(late)).toMatchObject({ completeness: { en: 0 }, version: 2 });
  });
});
