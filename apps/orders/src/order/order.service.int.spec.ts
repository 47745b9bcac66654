import type { DataSource } from 'typeorm';
import { ConflictError, ValidationError, type PimError } from '@pim/errors';
import { createDataSource, migrate } from '@pim/db';
import { runWithContext } from '@pim/logging';
import { RecordService } from '@pim/records';
import { createTestDatabase, type TestDatabase } from '@pim/testing';
import type { OrderInput, OrderView, WorkflowInput } from '@pim/resources';
import { dataSourceOptions } from '../data-source';
import type { OrderEntity } from '../entities/order.entity';
import { workflowsLink, type WorkflowsLink } from '../links/workflows.link';
import { ORDERS_STORE } from '../orders.records';
import { startWorkflowFixture, type WorkflowFixture } from '../testing/workflow.fixture';
import { OrderActions } from './order.actions';
import { OrderBulkUpsert } from './order.bulk';
import { orderRecord } from './order.resource';

const ANA = '6740a1b2c3d4e5f601234567';
const LIST = { page: 1, limit: 50, skip: 0, sort: [], filters: [], expand: [] };
const HOUR_MS = 3_600_000;

/** Two steps: picking (new → picked) and delivery (shipped → delivered | canceled). */
const FLOW: Partial<WorkflowInput> = {
  steps: [
    {
      name: 'Picking',
      code: 'picking',
      allocation_time: 2,
      status: [
        { code: 'new', name: 'New', moves_to: ['picked', 'canceled'] },
        { code: 'picked', name: 'Picked', moves_to: ['shipped'] },
      ],
    },
    {
      name: 'Delivery',
      code: 'delivery',
      allocation_time: 48,
      status: [
        { code: 'shipped', name: 'Shipped' },
        { code: 'delivered', name: 'Delivered', outcome: 'COMPLETED' },
        { code: 'canceled', name: 'Canceled', outcome: 'CANCELED' },
      ],
    },
  ],
};

const as = <T>(fn: () => Promise<T>) =>
  runWithContext({ requestId: 'test', actor: { user_id: ANA, user_name: 'Ana' } }, fn);
const rejection = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: PimError) => err,
  );

// Orders against the real Postgres and a real workflow app: the workflow copied on create, moves
// along allowed statuses to a final one, appends, filters and the bulk upsert.
describe('orders (real Postgres, real workflow app)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let workflowApp: WorkflowFixture;
  let link: WorkflowsLink;
  let orders: RecordService<OrderEntity, OrderView, OrderInput>;
  let actions: OrderActions;
  let n = 0;

  const order = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
    code: `ORD-${++n}`,
    external_code: `EXT-${n}`,
    channel: { code: 'web' },
    customer: { name: 'Ana', email: 'ana@example.com' },
    items_count: 1,
    ...over,
  });
  const events = async (id: string) =>
    (await ds.query(`SELECT envelope->>'type' AS type, envelope->'data' AS data FROM outbox ORDER BY id`)).filter(
      (e: { data: { _id: string } }) => e.data._id === id,
    ) as { type: string; data: Record<string, unknown> }[];

  beforeAll(async () => {
    [db, workflowApp] = await Promise.all([createTestDatabase('orders'), startWorkflowFixture('orders_wf')]);
    await migrate(dataSourceOptions(db.url));
    ds = createDataSource(dataSourceOptions(db.url));
    await ds.initialize();
    link = workflowsLink(workflowApp.address);
    orders = new RecordService(ds, orderRecord(link), ORDERS_STORE);
    actions = new OrderActions(orders, ds);
  }, 60_000);

  afterAll(async () => {
    link?.close();
    await ds?.destroy();
    await Promise.all([db?.drop(), workflowApp?.close()]);
  });

  it('copies the named or the default workflow and starts in its first enabled status; the copy survives edits', async () => {
    const fallback = await workflowApp.newWorkflow({ ...FLOW, default: true });
    const named = await workflowApp.newWorkflow({ ...FLOW, default: false });
    const a = await as(() => orders.create(order({ sla: 90 })));
    expect(a).toMatchObject({
      workflow_id: fallback._id,
      workflow_code: fallback.code,
      status_code: 'new',
      step_code: 'picking',
      status: { code: 'new', name: 'New', tags: [] },
      last_interaction: { user_id: ANA, user_name: 'Ana' },
      elapsed_time: 0,
    });
    expect(a.order_trackings).toEqual([
      expect.objectContaining({ from_status_code: null, to_status_code: 'new', step_code: 'picking' }),
    ]);
    expect(a.status?.tracking_id).toBe(a.order_trackings[0]._id);
    expect(Date.parse(a.sla_overdue_date!) - Date.parse(a.placed_at!)).toBe(90 * 60_000);
    expect(Date.parse(a.status_overdue_date!) - Date.parse(a.status_updated_at!)).toBe(2 * HOUR_MS);
    const b = await orders.create(order({ workflow_code: named.code }));
    expect(b.workflow_id).toBe(named._id);
    await workflowApp.patchWorkflow(named._id, { name: 'Renamed' });
    expect((await orders.get(b._id)).workflow?.name).toBe(named.name);
    // The order's own shapes: `workflow: {code}` or `{_id}` names the workflow, `channel._id` is its id.
    const c = await orders.create(order({ workflow: { code: named.code }, channel: { _id: ANA, code: 'web' } }));
    expect(c).toMatchObject({ workflow_id: named._id, workflow: { _id: named._id, code: named.code } });
    expect(c.channel).toEqual({ id: ANA, code: 'web' });
    expect((await orders.create(order({ workflow: { _id: named._id } }))).workflow_code).toBe(named.code);
    const two = await rejection(orders.create(order({ workflow: { _id: named._id }, workflow_id: fallback._id })));
    expect(two).toBeInstanceOf(ValidationError);
    expect(two.details).toEqual([
      { field: 'workflow', message: 'names another workflow than workflow_id or workflow_code' },
    ]);
    // The whole workflow as an order shows it names it too (its steps are copied from the workflow, not from it).
    const again = await orders.create(order({ workflow: c.workflow }));
    expect(again.workflow).toEqual(c.workflow);
    const channels = await rejection(orders.create(order({ channel: { id: ANA, _id: fallback._id, code: 'web' } })));
    expect(channels.details).toEqual([
      { field: 'channel._id', message: 'id and _id name two different channels: send one of them' },
    ]);
    const replaced = await orders.replace(b._id, { ...order({ code: b.code }), items_count: 3 });
    expect(replaced).toMatchObject({ workflow_id: named._id, status_code: 'new', items_count: 3 });
    expect(await rejection(orders.patch(b._id, { workflow_id: fallback._id }))).toBeInstanceOf(ConflictError);

    const unknown = await rejection(orders.create(order({ workflow_code: 'no_such_flow' })));
    expect(unknown).toBeInstanceOf(ValidationError);
    expect(unknown.details).toEqual([{ field: 'workflow_code', message: 'no live workflow' }]);
  });

  it('moves along allowed statuses to a final one, with trackings and status_changed events; then never again', async () => {
    const created = await orders.create(order());
    expect(await rejection(actions.move(created._id, 'delivered', undefined))).toBeInstanceOf(ConflictError);
    expect(await rejection(actions.move(created._id, 'lost', undefined))).toBeInstanceOf(ValidationError);
    await as(() => actions.move(created._id, 'picked', 'Boxed'));
    const shipped = await as(() => actions.move(created._id, 'shipped', undefined));
    expect(shipped).toMatchObject({ status_code: 'shipped', step_code: 'delivery', version: 3 });
    expect(Date.parse(shipped.status_overdue_date!) - Date.parse(shipped.status_updated_at!)).toBe(48 * HOUR_MS);
    const done = await as(() => actions.move(created._id, 'delivered', undefined));
    expect(done).toMatchObject({ final_status_type: 'COMPLETED', status_code: 'delivered' });
    expect(done.final_status_at).toBe(done.status_updated_at);
    expect(done.order_trackings.map((t) => [t.from_status_code, t.to_status_code, t.comment])).toEqual([
      [null, 'new', undefined],
      ['new', 'picked', 'Boxed'],
      ['picked', 'shipped', undefined],
      ['shipped', 'delivered', undefined],
    ]);
    const final = await rejection(actions.move(created._id, 'canceled', undefined));
    expect(final).toBeInstanceOf(ConflictError);
    expect(final.message).toContain('is final (COMPLETED');
    const changes = (await events(created._id)).filter((e) => e.type === 'orders.status_changed');
    expect(changes.map((e) => [e.data.from, e.data.to, e.data.outcome])).toEqual([
      ['new', 'picked', ''],
      ['picked', 'shipped', ''],
      ['shipped', 'delivered', 'COMPLETED'],
    ]);
    expect((await events(created._id)).filter((e) => e.type === 'orders.updated')).toHaveLength(3);
    expect(await actions.openOrders(created.workflow_id!)).toBeGreaterThan(0);
  });

  it('appends comments, payments and invoices, and finds orders by customer, channel and overdue', async () => {
    const late = await orders.create(
      order({ placed_at: new Date(Date.now() - 3 * HOUR_MS).toISOString(), sla: 60, customer: { email: 'late@x.io' } }),
    );
    const onTime = await orders.create(order({ sla: 600, channel: { code: 'store' } }));
    const lateFinal = await orders.create(
      order({ placed_at: new Date(Date.now() - 3 * HOUR_MS).toISOString(), sla: 1 }),
    );
    await actions.move(lateFinal._id, 'canceled', undefined);

    const commented = await as(() => actions.comment(late._id, 'Customer called'));
    expect(commented.order_comments).toEqual([
      expect.objectContaining({ text: 'Customer called', by: { user_id: ANA, user_name: 'Ana' } }),
    ]);
    const paid = await actions.payment(late._id, { method: 'pix', amount: 10, status: 'paid' });
    expect(paid.order_payments).toEqual([{ method: 'pix', amount: 10, status: 'paid' }]);
    expect(await rejection(actions.payment(late._id, { method: 'pix', amount: 10, status: 'lost' }))).toBeInstanceOf(
      ValidationError,
    );
    const invoiced = await actions.invoice(late._id, { number: 'NF-77' });
    expect(invoiced.invoice_number).toBe('NF-77');
    expect((await orders.list({ ...LIST, search: 'nf-77' })).data.map((o) => o._id)).toEqual([late._id]);

    const ids = async (filters: { field: string; op: 'eq'; values: string[] }[]) =>
      (await orders.list({ ...LIST, filters })).data.map((o) => o._id);
    expect(await ids([{ field: 'customer.email', op: 'eq', values: ['late@x.io'] }])).toEqual([late._id]);
    expect(await ids([{ field: 'channel.code', op: 'eq', values: ['store'] }])).toEqual([onTime._id]);
    const overdue = await ids([{ field: 'overdue', op: 'eq', values: ['true'] }]);
    expect(overdue).toContain(late._id);
    expect(overdue).not.toContain(onTime._id);
    expect(overdue).not.toContain(lateFinal._id);
    expect(await ids([{ field: 'overdue', op: 'eq', values: ['false'] }])).toEqual(
      expect.arrayContaining([onTime._id, lateFinal._id]),
    );
  });

  it('bulk upserts by code: one result per item, a bad item fails alone', async () => {
    const first = order();
    const results = await new OrderBulkUpsert(() => orders).upsert([
      first,
      order({ items_count: -1 }),
      order({ customer: { email: 'not an email' } }),
      order({ customer: { address: { coordinates: [1] } } }),
      { ...first, items_count: 7 },
    ]);
    expect(results.map((r) => r.status)).toEqual(['created', 'failed', 'failed', 'failed', 'updated']);
    expect(results[1].error?.details?.map((d) => d.field)).toEqual(['items_count']);
    expect(results[2].error?.details?.map((d) => d.field)).toEqual(['customer.email']);
    expect(results[3].error?.details?.map((d) => d.field)).toEqual(['customer.address.coordinates']);
    expect((await orders.get(results[0]._id!)).items_count).toBe(7);
  });

  it('refuses moves and appends on a deleted order, an empty comment and a stale If-Match', async () => {
    const created = await orders.create(order());
    const stale = await rejection(actions.move(created._id, 'picked', undefined, created.version + 1));
    expect(stale.status).toBe(412);
    expect(await rejection(actions.comment(created._id, '   '))).toBeInstanceOf(ValidationError);
    await orders.remove(created._id);
    const gone = await rejection(actions.move(created._id, 'picked', undefined));
    expect(gone.status).toBe(404);
    expect((await rejection(actions.payment(created._id, { method: 'pix', amount: 1, status: 'paid' }))).status).toBe(
      404,
    );
    expect((await events(created._id)).map((e) => e.type)).toEqual(['orders.created', 'orders.deleted']);
  });
});
