import type { DataSource } from 'typeorm';
import { createDataSource, migrate } from '@pim/db';
import { RecordService } from '@pim/records';
import type {
  UsersGroupInput,
  UsersGroupView,
  WorkflowApprovalInput,
  WorkflowApprovalView,
  WorkflowInput,
  WorkflowView,
} from '@pim/resources';
import { createTestDatabase, type TestDatabase } from '@pim/testing';
import { dataSourceOptions } from '../data-source';
import type { UsersGroupEntity } from '../entities/users-group.entity';
import type { WorkflowApprovalEntity } from '../entities/workflow-approval.entity';
import type { WorkflowEntity } from '../entities/workflow.entity';
import { usersGroupRecord } from '../users-group/users-group.resource';
import { workflowApprovalRecord } from '../workflow-approval/workflow-approval.resource';
import { workflowRecord } from '../workflow/workflow.resource';
import { WORKFLOW_STORE } from '../workflow.records';
import { catalogLink, type CatalogLink } from '../links/catalog.link';

/** A migrated database of the workflow app's own, its record services, and factories that return what they inserted. */
export interface WorkflowTestContext {
  db: TestDatabase;
  ds: DataSource;
  usersGroups: RecordService<UsersGroupEntity, UsersGroupView, UsersGroupInput>;
  workflows: RecordService<WorkflowEntity, WorkflowView, WorkflowInput>;
  approvals: RecordService<WorkflowApprovalEntity, WorkflowApprovalView, WorkflowApprovalInput>;
  /** A workflow with a fresh code, enabled, with the given fields. */
  newWorkflow(overrides?: Partial<WorkflowInput>): Promise<WorkflowView>;
  /** A workflow approval with a fresh code and one step, enabled, with the given fields. */
  newApproval(overrides?: Partial<WorkflowApprovalInput>): Promise<WorkflowApprovalView>;
  /** The types of the outbox's events, oldest first, and their records' ids. */
  events(): Promise<{ type: string; id: string; data: Record<string, unknown> }[]>;
  /** Empties every table between tests. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Builds the context for one test file; `catalog` answers the workflow approvals' attribute
 * filters (without one, a filter naming an attribute finds no catalog: 503).
 */
export async function workflowTestContext(
  catalog: Pick<CatalogLink, 'checkProductsQuery'> = catalogLink('127.0.0.1:1'),
): Promise<WorkflowTestContext> {
  const db = await createTestDatabase('workflow');
  await migrate(dataSourceOptions(db.url));
  const ds = createDataSource(dataSourceOptions(db.url));
  await ds.initialize();
  const workflows = new RecordService(ds, workflowRecord, WORKFLOW_STORE);
  const approvals = new RecordService(ds, workflowApprovalRecord(catalog), WORKFLOW_STORE);
  let n = 0;
  return {
    db,
    ds,
    usersGroups: new RecordService(ds, usersGroupRecord, WORKFLOW_STORE),
    workflows,
    approvals,
    newWorkflow: (overrides = {}) =>
      workflows.create({ code: `workflow_${++n}`, name: `Workflow ${n}`, enabled: true, ...overrides }),
    newApproval: (overrides = {}) =>
      approvals.create({
        code: `approval_${++n}`,
        name: `Approval ${n}`,
        enabled: true,
        steps: [{ name: 'Review', order: 1, approvers: ['6740a1b2c3d4e5f601234567'] }],
        ...overrides,
      }),
    async events() {
      const rows: { type: string; data: Record<string, unknown> }[] = await ds.query(
        `SELECT envelope->>'type' AS type, envelope->'data' AS data FROM outbox ORDER BY id`,
      );
      return rows.map((r) => ({ type: r.type, id: String(r.data._id), data: r.data }));
    },
    async reset() {
      await ds.query('TRUNCATE users_groups, workflows, workflow_approvals, product_approvals, outbox');
    },
    async close() {
      await ds.destroy();
      await db.drop();
    },
  };
}

/**
 * The context of a describe block: built once before its tests, emptied before each, closed
 * after; `set` receives it.
 */
export function useWorkflowContext(set: (ctx: WorkflowTestContext) => void): void {
  let ctx: WorkflowTestContext | undefined;
  beforeAll(async () => {
    ctx = await workflowTestContext();
    set(ctx);
  });
  afterAll(async () => {
    await ctx?.close();
  });
  beforeEach(async () => {
    await ctx?.reset();
  });
}
