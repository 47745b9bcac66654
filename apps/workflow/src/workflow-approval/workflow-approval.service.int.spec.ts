import { ValidationError } from '@pim/errors';
import { useWorkflowContext, type WorkflowTestContext } from '../testing/workflow.context';

const LIST = { page: 1, limit: 50, skip: 0, sort: [], filters: [], expand: [] };
const ANA = '6740a1b2c3d4e5f601234567';
const BRUNO = '6740a1b2c3d4e5f601234568';
const PRODUCT = '6740a1b2c3d4e5f6012345aa';

// Workflow approvals on the record engine against the real Postgres: steps in order, each with
// approvers, the products they govern, and one default at a time.
describe('workflow approvals (real Postgres)', () => {
  let ctx: WorkflowTestContext;
  useWorkflowContext((c) => (ctx = c));

  it('gives each step a step_id and keeps it, by order, when the approval is replaced', async () => {
    const a = await ctx.newApproval({
      filters: { brand_id: PRODUCT, categories: [PRODUCT] },
      included_products: [PRODUCT],
      steps: [
        { name: 'Marketing', order: 1, approvers: [ANA] },
        { name: 'Legal', order: 2, approvers: [BRUNO] },
      ],
    });
    expect(a).toMatchObject({ filters: { brand_id: PRODUCT }, included_products: [PRODUCT], exclude_products: [] });
    const [one, two] = a.steps;
    expect(one.step_id).toMatch(/^[0-9a-f]{24}$/);
    expect(two.step_id).not.toBe(one.step_id);
    const replaced = await ctx.approvals.patch(a._id, {
      steps: [
        { name: 'Marketing review', order: 1, approvers: [ANA, BRUNO] },
        { name: 'Legal', order: 2, approvers: [BRUNO] },
      ],
    });
    expect(replaced.steps.map((s) => s.step_id)).toEqual([one.step_id, two.step_id]);
  });

  it('refuses filters the product list does not take, naming them under filters', async () => {
    const err = await ctx.newApproval({ filters: { colour: 'red', brand_id_gt: 'x' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    const fields = (err as ValidationError).details?.map((d) => d.field) ?? [];
    expect(fields.length).toBeGreaterThan(0);
    expect(fields.every((f) => f.startsWith('filters.'))).toBe(true);
    expect(fields).toContain('filters.colour');
    expect((await ctx.approvals.list(LIST)).total).toBe(0);
    // Attribute filters are the catalog's to check (the product approvals' tests, with a catalog).
    const fine = await ctx.newApproval({ filters: { type: 'kit', enabled: 'true' } });
    expect(fine.filters).toEqual({ type: 'kit', enabled: 'true' });
  });

  it('refuses a step order that repeats and a step without approvers, naming each; nothing is stored', async () => {
    const err = await ctx
      .newApproval({
        steps: [
          { name: 'One', order: 1, approvers: [ANA] },
          { name: 'Two', order: 1, approvers: [] },
        ],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).details!.map((d) => d.field).sort()).toEqual([
      'steps.1.approvers',
      'steps.1.order',
    ]);
    expect((await ctx.approvals.list(LIST)).total).toBe(0);
  });

  it('keeps one default among live approvals', async () => {
    const first = await ctx.newApproval();
    const second = await ctx.newApproval();
    expect((await ctx.approvals.get(first._id)).default).toBe(false);
    expect((await ctx.approvals.get(second._id)).default).toBe(true);
    expect((await ctx.events()).map((e) => [e.type, e.id])).toEqual([
      ['workflow_approvals.created', first._id],
      ['workflow_approvals.updated', first._id],
      ['workflow_approvals.created', second._id],
    ]);
  });
});
