import { AuthorizationError, ConflictError, NotFoundError, ValidationError, type PimError } from '@pim/errors';
import { createLogger, runWithContext } from '@pim/logging';
import { RecordService } from '@pim/records';
import type { ProductApprovalInput, ProductApprovalView, WorkflowApprovalView } from '@pim/resources';
import type { ProductApprovalEntity } from '../entities/product-approval.entity';
import { catalogLink, type CatalogLink } from '../links/catalog.link';
import { startCatalogFixture, type CatalogFixture } from '../testing/catalog.fixture';
import { workflowTestContext, type WorkflowTestContext } from '../testing/workflow.context';
import { WORKFLOW_STORE } from '../workflow.records';
import { ProductApprovalApplier } from './product-approval.applier';
import { ProductApprovalDecisions } from './product-approval.decisions';
import { productApprovalRecord } from './product-approval.resource';

const ANA = '6740a1b2c3d4e5f601234567';
const BIA = '6740a1b2c3d4e5f601234568';
const CAIO = '6740a1b2c3d4e5f601234569';
const logger = createLogger({ service: 'product-approvals-test', level: 'silent' });

/** Runs a call as a user (an API key bound to them), or as a key bound to nobody. */
const as = <T>(userId: string | undefined, fn: () => Promise<T>) =>
  runWithContext(
    { requestId: 'test', actor: userId ? { user_id: userId, user_name: `user ${userId.slice(-2)}` } : {} },
    fn,
  );

/** Runs a call as a user restricted by users groups: they see the products those groups see (docs/decisions/access.md). */
const asRestricted = <T>(userId: string, groups: string[], fn: () => Promise<T>) =>
  runWithContext(
    {
      requestId: 'test',
      actor: {
        user_id: userId,
        user_name: `user ${userId.slice(-2)}`,
        access: { user_id: userId, all_products: false, groups },
      },
    },
    fn,
  );

const rejection = async (p: Promise<unknown>): Promise<PimError> => {
  try {
    await p;
  } catch (err) {
    return err as PimError;
  }
  throw new Error('expected a rejection');
};

// Product approvals against the real Postgres and a real catalog process: which workflow approval
// governs a product, decisions step by step, and the application of approved changes.
describe('product approvals (real Postgres, real catalog)', () => {
  let ctx: WorkflowTestContext;
  let catalog: CatalogFixture;
  let link: CatalogLink;
  let approvals: RecordService<ProductApprovalEntity, ProductApprovalView, ProductApprovalInput>;
  let decisions: ProductApprovalDecisions;

  beforeAll(async () => {
    catalog = await startCatalogFixture('pa_catalog');
    link = catalogLink(catalog.address);
    ctx = await workflowTestContext(link);
    approvals = new RecordService(ctx.ds, productApprovalRecord(link), WORKFLOW_STORE);
    const applier = new ProductApprovalApplier({ dataSource: ctx.ds, logger }, approvals, link);
    decisions = new ProductApprovalDecisions(approvals, applier);
  }, 60_000);

  afterAll(async () => {
    link?.close();
    await Promise.all([ctx?.close(), catalog?.close()]);
  });

  beforeEach(() => ctx.reset());

  /** A two-step workflow approval: Ana decides step 1, Bia step 2. */
  const twoSteps = (overrides: Record<string, unknown> = {}): Promise<WorkflowApprovalView> =>
    ctx.newApproval({
      steps: [
        { name: 'Merchandising', order: 1, approvers: [ANA] },
        { name: 'Catalog owner', order: 2, approvers: [BIA] },
      ],
      ...overrides,
    });

  it('refuses a product that is not live, a proposal of nothing, and a product no workflow approval governs', async () => {
    const product = await catalog.newProduct();
    const unknown = await rejection(approvals.create({ product_id: '6740a1b2c3d4e5f60123abcd', attribute_groups: [] }));
    expect(unknown).toBeInstanceOf(ValidationError);
    const empty = await rejection(approvals.create({ product_id: product.id }));
    expect(empty).toBeInstanceOf(ValidationError);
    expect(empty.details?.map((d) => d.message)).toEqual([expect.stringContaining('proposes no change')]);
    const group = await catalog.newAttributeGroup();
    const governed = await rejection(approvals.create({ product_id: product.id, attribute_groups: [group.id] }));
    expect(governed).toBeInstanceOf(ConflictError);
    expect(governed.message).toBe(`No workflow approval governs product '${product.id}'`);
    const deleted = await catalog.newProduct();
    await catalog.deleteProduct(deleted.id);
    await twoSteps();
    const gone = await rejection(approvals.create({ product_id: deleted.id, attribute_groups: [group.id] }));
    expect(gone).toBeInstanceOf(ValidationError);
    expect(gone.details).toEqual([{ field: 'product_id', message: `no live product has _id '${deleted.id}'` }]);
    expect((await ctx.events()).filter((e) => e.type.startsWith('product_approvals'))).toEqual([]);
  });

  it('is governed by the approval that includes the product, else one whose filters match it, else the default — never one that excludes it', async () => {
    const [plain, included, service, excluded] = await Promise.all([
      catalog.newProduct(),
      catalog.newProduct(),
      catalog.newProduct('service'),
      catalog.newProduct(),
    ]);
    const group = await catalog.newAttributeGroup();
    const fallback = await twoSteps({ exclude_products: [excluded.id] });
    const byList = await ctx.newApproval({ default: false, included_products: [included.id] });
    const byFilter = await ctx.newApproval({ default: false, filters: { type: 'service' } });
    const governing = async (productId: string) =>
      (await approvals.create({ product_id: productId, attribute_groups: [group.id] })).workflow_approval_id;
    expect(await governing(plain.id)).toBe(fallback._id);
    expect(await governing(included.id)).toBe(byList._id);
    expect(await governing(service.id)).toBe(byFilter._id);
    await expect(governing(excluded.id)).rejects.toBeInstanceOf(ConflictError);
  });

  it('moves through the steps in order, by their approvers only, and applies the changes once approved', async () => {
    const workflowApproval = await twoSteps();
    const [kit, part1, part2] = await Promise.all([
      catalog.newProduct('kit'),
      catalog.newProduct(),
      catalog.newProduct(),
    ]);
    const group = await catalog.newAttributeGroup();
    const created = await as(CAIO, () =>
      approvals.create({
        product_id: kit.id,
        kit_products: [
          { id: part1.id, quantity: 2 },
          { id: part2.id, quantity: 3 },
        ],
        attribute_groups: [group.id],
      }),
    );
    expect(created).toMatchObject({
      status: 'pending',
      workflow_approval_id: workflowApproval._id,
      current_step: { order: 1, name: 'Merchandising' },
      decisions: [],
      version: 1,
    });
    expect(created.steps.map((s) => s.approvers)).toEqual([[ANA], [BIA]]);
    expect(created.application).toBeUndefined();

    expect(await rejection(as(BIA, () => decisions.approve(created._id, undefined)))).toBeInstanceOf(
      AuthorizationError,
    );
    expect(await rejection(as(undefined, () => decisions.approve(created._id, undefined)))).toBeInstanceOf(
      AuthorizationError,
    );
    const step1 = await as(ANA, () => decisions.approve(created._id, 'Looks right'));
    expect(step1).toMatchObject({ status: 'pending', current_step: { order: 2 }, version: 2 });
    expect(step1.decisions).toEqual([
      expect.objectContaining({
        order: 1,
        decision: 'approved',
        comment: 'Looks right',
        by: { user_id: ANA, user_name: 'user 67' },
      }),
    ]);
    const edit = await rejection(approvals.patch(created._id, { attribute_groups: [] }));
    expect(edit).toBeInstanceOf(ConflictError);
    expect(await rejection(as(ANA, () => decisions.approve(created._id, undefined)))).toBeInstanceOf(
      AuthorizationError,
    );

    const approved = await as(BIA, () => decisions.approve(created._id, undefined));
    expect(approved).toMatchObject({ status: 'approved', application: { status: 'applied' } });
    expect(approved.current_step).toBeUndefined();
    expect(approved.decided_at).toEqual(expect.any(String));

    const product = await catalog.product(kit.id);
    expect(product).toMatchObject({ attribute_groups: [group.id], product_approval: created._id, version: 2 });
    expect(product?.last_approval_at).toBe(approved.decided_at);
    const relation = await catalog.relation(kit.id, 'kit_products');
    expect(relation?.kit_products).toEqual([
      { id: part1.id, quantity: 2 },
      { id: part2.id, quantity: 3 },
    ]);

    const again = await rejection(as(BIA, () => decisions.approve(created._id, undefined)));
    expect(again).toBeInstanceOf(ConflictError);
    expect(again.message).toContain('is approved, not pending');
    expect(await rejection(approvals.remove(created._id))).toBeInstanceOf(ConflictError);
    const types = (await ctx.events()).filter((e) => e.id === created._id).map((e) => e.type);
    expect(types).toEqual([
      'product_approvals.created',
      'product_approvals.updated',
      'product_approvals.approved',
      'product_approvals.updated',
    ]);
  });

  it('rejects: nothing is applied and the rejection is its event', async () => {
    await twoSteps();
    const [kit, part] = await Promise.all([catalog.newProduct('kit'), catalog.newProduct()]);
    const created = await approvals.create({ product_id: kit.id, kit_products: [{ id: part.id, quantity: 1 }] });
    const rejected = await as(ANA, () => decisions.reject(created._id, 'Wrong part'));
    expect(rejected).toMatchObject({
      status: 'rejected',
      decisions: [{ decision: 'rejected', comment: 'Wrong part' }],
    });
    expect(rejected.application).toBeUndefined();
    expect(await rejection(as(BIA, () => decisions.approve(created._id, undefined)))).toBeInstanceOf(ConflictError);
    expect(await catalog.relation(kit.id, 'kit_products')).toBeUndefined();
    expect((await catalog.product(kit.id))?.version).toBe(1);
    const types = (await ctx.events()).filter((e) => e.id === created._id).map((e) => e.type);
    expect(types).toEqual(['product_approvals.created', 'product_approvals.rejected']);
  });

  it('records a refusal of the catalog: nothing applied there, the approval says why, the approver gets the error', async () => {
    await ctx.newApproval({ steps: [{ name: 'Review', order: 1, approvers: [ANA] }] });
    const [kit, service, later] = await Promise.all([
      catalog.newProduct('kit'),
      catalog.newProduct('service'),
      catalog.newProduct(),
    ]);
    // A service is not a kit product: the catalog's relation rule refuses it.
    const wrong = await approvals.create({ product_id: kit.id, kit_products: [{ id: service.id, quantity: 1 }] });
    const refused = await rejection(as(ANA, () => decisions.approve(wrong._id, undefined)));
    expect(refused).toBeInstanceOf(ConflictError);
    expect(refused.message).toContain(
      `Product approval '${wrong._id}' is approved, but the catalog refused its changes`,
    );
    const stored = await approvals.get(wrong._id);
    expect(stored).toMatchObject({ status: 'approved', application: { status: 'failed', error: { code: 400 } } });
    expect((await catalog.product(kit.id))?.version).toBe(1);
    expect(await catalog.relation(kit.id, 'kit_products')).toBeUndefined();

    // The product is deleted between the proposal and the decision.
    const gone = await approvals.create({ product_id: later.id, eligible_service_products: [{ id: service.id }] });
    await catalog.deleteProduct(later.id);
    const missing = await rejection(as(ANA, () => decisions.approve(gone._id, undefined)));
    expect(missing).toBeInstanceOf(ConflictError);
    expect(missing.message).toContain('No product');
    expect((await approvals.get(gone._id)).application).toMatchObject({ status: 'failed', error: { code: 404 } });
  });

  it('changes a proposal before the first decision, deletes a pending one, refuses a stale If-Match', async () => {
    await twoSteps();
    const [kit, part] = await Promise.all([catalog.newProduct('kit'), catalog.newProduct()]);
    const later = await ctx.newApproval({ default: false, included_products: [kit.id] });
    const created = await approvals.create({ product_id: kit.id, kit_products: [{ id: part.id, quantity: 1 }] });
    expect(created.workflow_approval_id).toBe(later._id);
    const patched = await approvals.patch(created._id, { kit_products: [{ id: part.id, quantity: 4 }] });
    expect(patched).toMatchObject({ version: 2, kit_products: [{ id: part.id, quantity: 4 }], status: 'pending' });
    const stale = await rejection(as(ANA, () => decisions.approve(created._id, undefined, 1)));
    expect(stale.status).toBe(412);
    const listed = await approvals.list({
      page: 1,
      limit: 10,
      skip: 0,
      sort: [],
      filters: [{ field: 'status', op: 'eq', values: ['pending'] }],
      expand: [],
    });
    expect(listed.data.map((a) => a._id)).toEqual([created._id]);
    await approvals.remove(created._id);
    expect((await ctx.events()).filter((e) => e.id === created._id).map((e) => e.type)).toEqual([
      'product_approvals.created',
      'product_approvals.updated',
      'product_approvals.deleted',
    ]);
  });

  it('keeps a restricted user to the approvals of products they see: lists and totals filtered, the others a 404 to read, change, delete or decide', async () => {
    const G1 = '6740a1b2c3d4e5f6000000f1';
    await ctx.newApproval({ steps: [{ name: 'Review', order: 1, approvers: [ANA] }] });
    const [seen, hidden, part] = await Promise.all([
      catalog.newProduct('kit', [G1]),
      catalog.newProduct('kit'),
      catalog.newProduct(),
    ]);
    const propose = (productId: string) =>
      approvals.create({ product_id: productId, kit_products: [{ id: part.id, quantity: 1 }] });
    const mine = await propose(seen.id);
    const theirs = await propose(hidden.id);
    const query = { page: 1, limit: 10, skip: 0, sort: [], filters: [], expand: [] };
    const listed = await asRestricted(ANA, [G1], () => approvals.list(query));
    expect([listed.total, listed.data.map((a) => a._id)]).toEqual([1, [mine._id]]);
    const byProduct = await asRestricted(ANA, [G1], () =>
      approvals.list({ ...query, filters: [{ field: 'product_id', op: 'eq', values: [hidden.id] }] }),
    );
    expect(byProduct.total).toBe(0);
    expect((await asRestricted(ANA, [], () => approvals.list(query))).total).toBe(0);
    const full = { user_id: ANA, all_products: true, groups: [] };
    const everything = await runWithContext({ requestId: 'test', actor: { user_id: ANA, access: full } }, () =>
      approvals.list(query),
    );
    expect(everything.total).toBe(2);
    expect(
      (await asRestricted(ANA, [G1], () => approvals.batchGet([mine._id, theirs._id], []))).map((a) => a._id),
    ).toEqual([mine._id]);

    const refusals = await Promise.all(
      [
        () => approvals.get(theirs._id),
        () => approvals.patch(theirs._id, { kit_products: [{ id: part.id, quantity: 2 }] }),
        () => approvals.replace(theirs._id, { product_id: hidden.id, kit_products: [{ id: part.id, quantity: 3 }] }),
        () => approvals.remove(theirs._id),
        () => decisions.approve(theirs._id, undefined),
        () => decisions.reject(theirs._id, 'no'),
      ].map((call) => rejection(asRestricted(ANA, [G1], call))),
    );
    for (const r of refusals) expect([r.constructor.name, r.status]).toEqual([NotFoundError.name, 404]);
    // Moving one's own approval onto a product out of sight is refused like an unknown product.
    const moved = await rejection(asRestricted(ANA, [G1], () => approvals.patch(mine._id, { product_id: hidden.id })));
    expect(moved).toBeInstanceOf(ValidationError);
    expect(await approvals.get(theirs._id)).toMatchObject({ version: 1, status: 'pending', decisions: [] });
    expect((await ctx.events()).filter((e) => e.id === theirs._id).map((e) => e.type)).toEqual([
      'product_approvals.created',
    ]);
    const decided = await asRestricted(ANA, [G1], () => decisions.reject(mine._id, 'Mine to decide'));
    expect(decided).toMatchObject({ _id: mine._id, status: 'rejected' });
  });
});
