import { ConflictError, NotFoundError, PreconditionFailedError, ValidationError } from '@pim/errors';
import type { WorkflowInput } from '@pim/resources';
import { useWorkflowContext, type WorkflowTestContext } from '../testing/workflow.context';

const LIST = { page: 1, limit: 50, skip: 0, sort: [], filters: [], expand: [] };

/** Two steps: payment (pending → paid, or canceled) and delivery (shipped → delivered). */
const steps: WorkflowInput['steps'] = [
  {
    code: 'payment',
    name: 'Payment',
    allocation_time: 24,
    status: [
      { code: 'pending', name: 'Awaiting payment', moves_to: ['paid', 'canceled'] },
      { code: 'paid', name: 'Paid', color: '#0a0' },
      { code: 'canceled', name: 'Canceled', outcome: 'CANCELED', enabled: false },
    ],
  },
  {
    code: 'delivery',
    name: 'Delivery',
    users: [{ id: '6740a1b2c3d4e5f601234567', name: 'Ana' }],
    status: [
      { code: 'shipped', name: 'Shipped', notify: true },
      { code: 'delivered', name: 'Delivered', outcome: 'COMPLETED' },
    ],
  },
];

// Workflows on the record engine against the real Postgres: steps and statuses as data, one
// default at a time (also under racing writes), and their events.
describe('workflows (real Postgres)', () => {
  let ctx: WorkflowTestContext;
  useWorkflowContext((c) => (ctx = c));

  it('creates, reads, patches, lists and deletes, with versions, a unique code and one event per write', async () => {
    const created = await ctx.newWorkflow({ code: 'first', name: 'First' });
    expect(created).toMatchObject({ code: 'first', name: 'First', version: 1, enabled: true, default: true });
    await expect(ctx.newWorkflow({ code: 'first' })).rejects.toBeInstanceOf(ConflictError);
    const patched = await ctx.workflows.patch(created._id, { description: 'Orders of the shop' }, 1);
    expect(patched).toMatchObject({ description: 'Orders of the shop', version: 2 });
    await expect(ctx.workflows.patch(created._id, { name: 'Again' }, 1)).rejects.toBeInstanceOf(
      PreconditionFailedError,
    );
    const found = await ctx.workflows.list({ ...LIST, search: 'first' });
    expect(found.data.map((v) => v._id)).toEqual([created._id]);
    await ctx.workflows.remove(created._id, 2);
    await expect(ctx.workflows.get(created._id)).rejects.toBeInstanceOf(NotFoundError);
    expect((await ctx.events()).map((e) => e.type)).toEqual([
      'workflows.created',
      'workflows.updated',
      'workflows.deleted',
    ]);
  });

  it('stores steps with every list and flag filled in, gives statuses ids and keeps them when the workflow is replaced', async () => {
    const w = await ctx.newWorkflow({ steps });
    const [payment, delivery] = w.steps;
    expect(payment).toMatchObject({ code: 'payment', allocation_time: 24, users: [], users_groups: [], scopes: [] });
    expect(payment.locker).toBe(false);
    expect(payment.status.map((s) => [s.code, s.enabled, s.notify, s.outcome])).toEqual([
      ['pending', true, false, ''],
      ['paid', true, false, ''],
      ['canceled', false, false, 'CANCELED'],
    ]);
    expect(payment.status[0].moves_to).toEqual(['paid', 'canceled']);
    expect(delivery.status[1]).toMatchObject({ code: 'delivered', outcome: 'COMPLETED', tags: [], moves_to: [] });
    for (const s of [...payment.status, ...delivery.status]) expect(s._id).toMatch(/^[0-9a-f]{24}$/);
    const ids = new Set([...payment.status, ...delivery.status].map((s) => s._id));
    expect(ids.size).toBe(5);

    // Replaced without ids: each status keeps the id its code had; a new code gets a new id.
    const replaced = await ctx.workflows.replace(
      w._id,
      {
        code: w.code,
        name: w.name,
        enabled: true,
        steps: [{ ...steps[0], status: [...steps[0].status!, { code: 'refunded', name: 'Refunded' }] }],
      },
      1,
    );
    const byCode = new Map(replaced.steps[0].status.map((s) => [s.code, s._id]));
    expect(byCode.get('pending')).toBe(payment.status[0]._id);
    expect(byCode.get('paid')).toBe(payment.status[1]._id);
    expect(ids.has(byCode.get('refunded')!)).toBe(false);
  });

  it('refuses a status code used twice in the workflow, a step code used twice and a move to an unknown status, naming each', async () => {
    const bad: WorkflowInput['steps'] = [
      { code: 'a', name: 'A', status: [{ code: 'open', name: 'Open', moves_to: ['closed', 'lost'] }] },
      { code: 'a', name: 'B', status: [{ code: 'open', name: 'Open again' }] },
    ];
    const err = await ctx.newWorkflow({ steps: bad }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    const fields = (err as ValidationError).details!.map((d) => d.field);
    expect(fields).toEqual(
      expect.arrayContaining([
        'steps.1.code',
        'steps.1.status.0.code',
        'steps.0.status.0.moves_to.0',
        'steps.0.status.0.moves_to.1',
      ]),
    );
    expect(await ctx.workflows.list(LIST)).toMatchObject({ total: 0 });
    const outcome = await ctx
      .newWorkflow({ steps: [{ code: 'a', name: 'A', status: [{ code: 'x', name: 'X', outcome: 'DONE' as never }] }] })
      .catch((e: unknown) => e);
    expect(outcome).toBeInstanceOf(ValidationError);
  });

  it('keeps one default: a new default clears the previous one, which gets its updated event', async () => {
    const first = await ctx.newWorkflow();
    const second = await ctx.newWorkflow();
    expect(second.default).toBe(true);
    expect(await ctx.workflows.get(first._id)).toMatchObject({ default: false, version: 2 });
    const events = await ctx.events();
    expect(events.map((e) => [e.type, e.id])).toEqual([
      ['workflows.created', first._id],
      ['workflows.updated', first._id],
      ['workflows.created', second._id],
    ]);
    expect(events[1].data.default).toBe(false);

    // Not the default: nothing else changes. Made the default by a patch: the other one clears.
    const third = await ctx.newWorkflow({ default: false });
    expect((await ctx.workflows.get(second._id)).default).toBe(true);
    await ctx.workflows.patch(third._id, { default: true });
    expect((await ctx.workflows.get(second._id)).default).toBe(false);
    expect((await ctx.workflows.get(third._id)).default).toBe(true);
  });

  it('leaves exactly one default after 20 racing creates', async () => {
    const created = await Promise.all(Array.from({ length: 20 }, () => ctx.newWorkflow()));
    expect(created).toHaveLength(20);
    const defaults: { n: number }[] = await ctx.ds.query(
      `SELECT count(*)::int AS n FROM workflows WHERE "default" AND NOT deleted`,
    );
    expect(defaults[0].n).toBe(1);
    const list = await ctx.workflows.list({ ...LIST, filters: [{ field: 'default', op: 'eq', values: ['true'] }] });
    expect(list.total).toBe(1);
  });
});
