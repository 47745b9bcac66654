import { Client } from 'pg';
import { workflow as wpb } from '@pim/contracts';
import { runWithContext } from '@pim/logging';
import { createRpcClient } from '@pim/rpc';
import { createTestDatabase, startAppProcess, type AppProcess, type TestDatabase } from '@pim/testing';
import { startCatalogFixture, type CatalogFixture } from '../testing/catalog.fixture';

const ANA = '6740a1b2c3d4e5f601234567';
const BIA = '6740a1b2c3d4e5f601234568';
const APPROVALS = 200;
const CONCURRENCY = 8;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const between = (min: number, max: number) => min + Math.floor(Math.random() * (max - min));

/** Runs `fn` on every item, `limit` at a time. */
async function eachLimited<T>(items: T[], limit: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i], i);
      }
    }),
  );
}

/** Calls until the call answers (an app being killed and restarted answers Unavailable meanwhile). */
async function persist<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      const kind = (err as { kind?: string }).kind;
      if ((kind !== 'unavailable' && kind !== 'internal') || attempt > 600) throw err;
      await sleep(100);
    }
  }
}

// The saga under crashes: 200 product approvals decided (a fifth rejected) while the workflow app
// and the catalog are SIGKILLed and restarted at random moments. Afterwards every approved one is
// in the catalog exactly once (one ledger row, one product write, its kit relation) and nothing
// of the rejected ones is.
describe('product approvals under SIGKILL of the workflow app and the catalog', () => {
  let catalog: CatalogFixture;
  let wfDb: TestDatabase;
  let workflow: AppProcess;
  let wfPort: number;
  let env: Record<string, string>;

  beforeAll(async () => {
    [catalog, wfDb] = await Promise.all([startCatalogFixture('pa_crash_catalog'), createTestDatabase('pa_crash_wf')]);
    env = { CATALOG_GRPC_URL: catalog.address, PRODUCT_APPROVAL_LEASE_MS: '1000' };
    workflow = await startAppProcess('workflow', wfDb.url, env);
    wfPort = Number(workflow.address.split(':')[1]);
  }, 120_000);

  afterAll(async () => {
    await workflow?.stop();
    await Promise.all([catalog?.close(), wfDb?.drop()]);
  });

  it('applies every approved one exactly once and none of the others', async () => {
    const opts = { service: 'workflow', address: workflow.address, deadlineMs: 5_000 };
    const flows = createRpcClient(wpb.WorkflowApprovalsServiceClient, opts);
    const approvals = createRpcClient(wpb.ProductApprovalsServiceClient, opts);
    await flows.createWorkflowApproval({
      input: wpb.WorkflowApprovalInput.fromPartial({
        code: 'two_steps',
        name: 'Two steps',
        enabled: true,
        steps: [
          { name: 'Merchandising', order: 1, approvers: [ANA] },
          { name: 'Catalog owner', order: 2, approvers: [BIA] },
        ],
      }),
    });
    const [part1, part2] = [await catalog.newProduct(), await catalog.newProduct()];
    const group = await catalog.newAttributeGroup();
    const kits: string[] = [];
    await eachLimited(Array.from({ length: APPROVALS }), CONCURRENCY, async () => {
      kits.push((await catalog.newProduct('kit')).id);
    });
    const ids: string[] = [];
    await eachLimited(kits, CONCURRENCY, async (kit) => {
      const { data } = await approvals.createProductApproval({
        input: wpb.ProductApprovalInput.fromPartial({
          product_id: kit,
          kit_products: [
            { id: part1.id, quantity: 1 },
            { id: part2.id, quantity: 2 },
          ],
          attribute_groups: [group.id],
        }),
      });
      ids.push(data!.id);
    });
    const rejectedIds = new Set(ids.filter((_, i) => i % 5 === 0));

    /** Kills one of the two apps (or the one named) and starts it again on the same port. */
    let kills = 0;
    const crash = async (which: 'workflow' | 'catalog' = Math.random() < 0.5 ? 'workflow' : 'catalog') => {
      if (which === 'workflow') {
        await workflow.kill();
        await sleep(between(50, 300));
        workflow = await startAppProcess('workflow', wfDb.url, env, { port: wfPort, migrate: false });
      } else {
        await catalog.process.kill();
        await sleep(between(50, 300));
        await catalog.restart();
      }
      kills++;
    };

    /** Decides one approval as its current step's approver; a lost answer is read back first. */
    const decide = async (id: string) => {
      for (;;) {
        const { data } = await persist(() => approvals.getProductApproval({ id }));
        if (data!.status !== 'pending') return;
        const user = (data!.current_step?.order ?? 1) === 1 ? ANA : BIA;
        await runWithContext({ requestId: `decide-${id}`, actor: { user_id: user } }, () =>
          persist(async () => {
            try {
              if (rejectedIds.has(id)) await approvals.rejectProductApproval({ id });
              else await approvals.approveProductApproval({ id });
            } catch (err) {
              // Decided meanwhile by a call whose answer was lost: read it back.
              const kind = (err as { kind?: string }).kind;
              if (kind !== 'conflict' && kind !== 'authorization') throw err;
            }
          }),
        );
      }
    };

    // Batches of 25 decided 8 at a time, one app SIGKILLed within the first 40 ms of each batch
    // (decisions wait for it to come back), so every batch is cut by a crash at a random point.
    for (let at = 0; at < ids.length; at += 25) {
      await Promise.all([
        eachLimited(ids.slice(at, at + 25), CONCURRENCY, decide),
        sleep(between(0, 40)).then(() => crash()),
      ]);
    }
    expect(kills).toBe(Math.ceil(APPROVALS / 25));
    // And both once more while the last applications may still be on their way.
    await crash('workflow');
    await crash('catalog');

    const wf = new Client({ connectionString: wfDb.url });
    const cat = new Client({ connectionString: catalog.db.url });
    await Promise.all([wf.connect(), cat.connect()]);
    try {
      // The appliers finish by themselves after the last restart.
      const until = Date.now() + 60_000;
      for (;;) {
        const { rows } = await wf.query(
          `SELECT count(*)::int AS n FROM workflow.product_approvals WHERE application ->> 'status' = 'pending'`,
        );
        if (rows[0].n === 0) break;
        if (Date.now() > until)
          throw new Error(`${rows[0].n} approved changes still pending:\n${workflow.output.slice(-20).join('')}`);
        await sleep(200);
      }
      const states = await wf.query(
        `SELECT _id, status, application ->> 'status' AS applied, product_id FROM workflow.product_approvals`,
      );
      const approvedIds = states.rows.filter((r) => r.status === 'approved').map((r) => r._id as string);
      expect(
        states.rows
          .filter((r) => r.status === 'rejected')
          .map((r) => r._id as string)
          .sort(),
      ).toEqual([...rejectedIds].sort());
      expect(approvedIds.length).toBe(APPROVALS - rejectedIds.size);
      expect(states.rows.filter((r) => r.status === 'approved' && r.applied !== 'applied')).toEqual([]);

      const ledger = await cat.query(`SELECT change_id FROM catalog.applied_changes ORDER BY change_id`);
      expect(ledger.rows.map((r) => (r.change_id as string).trim())).toEqual([...approvedIds].sort());
      const products = await cat.query(
        `SELECT _id, version, product_approval, attribute_groups FROM catalog.products WHERE _id = ANY($1)`,
        [kits],
      );
      const byProduct = new Map(states.rows.map((r) => [(r.product_id as string).trim(), r]));
      for (const p of products.rows) {
        const approval = byProduct.get((p._id as string).trim())!;
        if (approval.status === 'approved') {
          expect({ version: p.version, approval: p.product_approval?.trim(), groups: p.attribute_groups }).toEqual({
            version: 2,
            approval: approval._id.trim(),
            groups: [group.id],
          });
        } else {
          expect({ version: p.version, approval: p.product_approval }).toEqual({ version: 1, approval: null });
        }
      }
      const relations = await cat.query(
        `SELECT product_id, items FROM catalog.product_relations WHERE deleted = false AND type = 'kit_products'`,
      );
      expect(relations.rows.map((r) => (r.product_id as string).trim()).sort()).toEqual(
        states.rows
          .filter((r) => r.status === 'approved')
          .map((r) => (r.product_id as string).trim())
          .sort(),
      );
      for (const r of relations.rows)
        expect(r.items).toEqual([
          { id: part1.id, quantity: 1 },
          { id: part2.id, quantity: 2 },
        ]);
      // One products.updated event per applied approval: the catalog wrote each product once.
      const events = await cat.query(
        `SELECT envelope -> 'data' ->> '_id' AS id, count(*)::int AS n FROM catalog.outbox
          WHERE envelope ->> 'type' = 'products.updated' GROUP BY 1`,
      );
      expect(events.rows.filter((e) => e.n !== 1)).toEqual([]);
      expect(events.rows.length).toBe(approvedIds.length);
    } finally {
      flows.close();
      approvals.close();
      await Promise.all([wf.end(), cat.end()]);
    }
  }, 300_000);
});
