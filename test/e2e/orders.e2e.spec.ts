import { eventually, startE2E, type E2E } from './platform';

type Json = Record<string, unknown>;

const ANA = '6740a1b2c3d4e5f601234567';
const HOUR_MS = 3_600_000;

// HTTP → gateway → orders app (→ workflow app for the workflow copy) → Postgres → outbox → NATS:
// orders driven only over HTTP, as a channel and an operator would.
describe('orders through the whole platform', () => {
  let e2e: E2E;
  let operator: Record<string, string>;
  let flowId: string;

  beforeAll(async () => {
    e2e = await startE2E('e2eorders');
    const key = await e2e.newKey(['orders:read', 'orders:write'], { user_id: ANA, user_name: 'Ana' });
    operator = { authorization: `Bearer ${key}` };
    const flow = await e2e.api('POST', '/api/v1/workflows', {
      code: 'fulfilment',
      name: 'Fulfilment',
      enabled: true,
      steps: [
        {
          name: 'Picking',
          code: 'picking',
          allocation_time: 4,
          status: [
            { code: 'new', name: 'New', moves_to: ['picked'] },
            { code: 'picked', name: 'Picked', moves_to: ['delivered'] },
          ],
        },
        {
          name: 'Delivery',
          code: 'delivery',
          allocation_time: 24,
          status: [{ code: 'delivered', name: 'Delivered', outcome: 'COMPLETED' }],
        },
      ],
    });
    expect(flow.status).toBe(201);
    flowId = flow.json._id as string;
  });

  afterAll(async () => {
    await e2e?.close();
  });

  const order = (code: string, extra: Json = {}) => ({
    code,
    external_code: `ext-${code}`,
    channel: { code: 'marketplace', name: 'Marketplace' },
    customer: { name: 'Bia', email: 'bia@example.com', address: { city: 'Recife', coordinates: [-34.88, -8.05] } },
    items_count: 2,
    order_items: [{ sku: 'SKU-1', name: 'Cup', quantity: 2, unit_price: 10, total: 20 }],
    ...extra,
  });

  it('copies the default or the named workflow, and the copy survives an edit of the workflow', async () => {
    const other = await e2e.api('POST', '/api/v1/workflows', {
      code: 'returns',
      name: 'Returns',
      enabled: true,
      default: false,
      steps: [{ name: 'Return', code: 'return', status: [{ code: 'requested', name: 'Requested' }] }],
    });
    const byDefault = await e2e.api('POST', '/api/v1/orders', order('A-1'));
    expect(byDefault.status).toBe(201);
    expect(byDefault.json).toMatchObject({
      workflow_id: flowId,
      workflow_code: 'fulfilment',
      status_code: 'new',
      step_code: 'picking',
      customer: { email: 'bia@example.com', address: { coordinates: [-34.88, -8.05] } },
    });
    const named = await e2e.api('POST', '/api/v1/orders', order('A-2', { workflow_code: 'returns' }));
    expect(named.json).toMatchObject({ workflow_id: other.json._id, status_code: 'requested' });
    await e2e.api('PATCH', `/api/v1/workflows/${other.json._id as string}`, { name: 'Returns v2' });
    const again = await e2e.api('GET', `/api/v1/orders/${named.json._id as string}`);
    expect((again.json.workflow as Json).name).toBe('Returns');
  });

  it('moves through two steps to COMPLETED; then a move is 409, as is a move the workflow does not allow', async () => {
    const created = await e2e.api('POST', '/api/v1/orders', order('B-1'));
    const id = created.json._id as string;
    const move = (status_code: string) => e2e.api('POST', `/api/v1/orders/${id}/status`, { status_code }, operator);
    const skip = await move('delivered');
    expect(skip.status).toBe(409);
    expect(skip.json.message).toContain("from status 'new' to 'delivered'");
    expect((await move('picked')).status).toBe(200);
    const done = await move('delivered');
    expect(done.status).toBe(200);
    expect(done.headers.get('etag')).toBe('"3"');
    const o = done.json;
    expect(o).toMatchObject({
      status_code: 'delivered',
      step_code: 'delivery',
      status: { code: 'delivered', name: 'Delivered' },
      final_status_type: 'COMPLETED',
      last_interaction: { user_id: ANA, user_name: 'Ana' },
    });
    expect(o.final_status_at).toBe(o.status_updated_at);
    expect(Date.parse(o.status_overdue_date as string) - Date.parse(o.status_updated_at as string)).toBe(24 * HOUR_MS);
    const trackings = o.order_trackings as Json[];
    expect(trackings.map((t) => [t.from_status_code, t.to_status_code, t.step_code])).toEqual([
      [null, 'new', 'picking'],
      ['new', 'picked', 'picking'],
      ['picked', 'delivered', 'delivery'],
    ]);
    expect((o.status as Json).tracking_id).toBe(trackings[2]._id);
    const after = await move('picked');
    expect(after.status).toBe(409);
    expect(after.json).toMatchObject({ code: 409, kind: 'conflict' });

    const subject = `${e2e.stream.subjectPrefix}pim.orders.orders.status_changed`;
    await eventually(async () => (await e2e.stream.messages(subject)).length >= 2);
    const changes = (await e2e.stream.messages(subject))
      .map((m) => (m.data as { data: Json }).data)
      .filter((d) => d._id === id);
    expect(changes.map((d) => [d.from, d.to, d.outcome])).toEqual([
      ['new', 'picked', ''],
      ['picked', 'delivered', 'COMPLETED'],
    ]);
  });

  it('finds overdue orders and orders by customer email; appends a comment', async () => {
    const placed = new Date(Date.now() - 2 * HOUR_MS).toISOString();
    const late = await e2e.api(
      'POST',
      '/api/v1/orders',
      order('C-1', { placed_at: placed, sla: 30, customer: { email: 'late@example.com' } }),
    );
    const fine = await e2e.api('POST', '/api/v1/orders', order('C-2', { sla: 600 }));
    const overdue = await e2e.api('GET', '/api/v1/orders?overdue=true&channel.code=marketplace&sort=-placed_at');
    expect(overdue.status).toBe(200);
    const ids = (overdue.json.data as Json[]).map((d) => d._id);
    expect(ids).toContain(late.json._id);
    expect(ids).not.toContain(fine.json._id);
    const byEmail = await e2e.api('GET', '/api/v1/orders?customer.email=late@example.com');
    expect((byEmail.json.data as Json[]).map((d) => d._id)).toEqual([late.json._id]);
    expect((await e2e.api('GET', '/api/v1/orders?overdue=maybe')).status).toBe(400);
    const commented = await e2e.api(
      'POST',
      `/api/v1/orders/${late.json._id as string}/comments`,
      { text: 'Called' },
      operator,
    );
    expect(commented.status).toBe(200);
    expect(commented.json.order_comments).toEqual([
      expect.objectContaining({ text: 'Called', by: { user_id: ANA, user_name: 'Ana' } }),
    ]);
  });

  it('bulk upserts with bad items answering per item', async () => {
    const r = await e2e.api('POST', '/api/v1/orders/bulk', {
      items: [
        order('D-1'),
        order('D-2', { items_count: -1 }),
        order('D-3', { customer: { email: 'nope' } }),
        order('D-4', { workflow_code: 'missing' }),
        order('D-1', { items_count: 5 }),
      ],
    });
    expect(r.status).toBe(200);
    const data = r.json.data as Json[];
    expect(data.map((d) => d.status)).toEqual(['created', 'failed', 'failed', 'failed', 'updated']);
    expect((data[1].error as Json).code).toBe(400);
    expect(((data[3].error as Json).details as Json[])[0]).toMatchObject({ field: 'workflow_code' });
  });

  it('keeps a workflow that open orders follow: deleting it is a 409 with their count', async () => {
    const open = await e2e.api('GET', `/api/v1/orders?workflow_id=${flowId}&final_status_type_exists=false&limit=1`);
    expect(open.status).toBe(200);
    const refused = await e2e.api('DELETE', `/api/v1/workflows/${flowId}`);
    expect(refused.status).toBe(409);
    expect(refused.json.message).toBe(
      `Workflow 'fulfilment' is followed by ${open.json.total as number} open order(s)`,
    );
    const unused = await e2e.api('POST', '/api/v1/workflows', {
      code: 'unused',
      name: 'Unused',
      enabled: true,
      default: false,
      steps: [{ name: 'Only', code: 'only', status: [{ code: 'open', name: 'Open' }] }],
    });
    expect((await e2e.api('DELETE', `/api/v1/workflows/${unused.json._id as string}`)).status).toBe(204);
  });
});
