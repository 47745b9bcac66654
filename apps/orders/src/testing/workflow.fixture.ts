import { workflow as pb } from '@pim/contracts';
import { workflowFromWire, workflowToWire, type WorkflowInput, type WorkflowView } from '@pim/resources';
import { createRpcClient } from '@pim/rpc';
import { createTestDatabase, startAppProcess, type AppProcess, type TestDatabase } from '@pim/testing';

/** A real workflow app for the orders app's tests: its own database and process, and factories that return what they made. */
export interface WorkflowFixture {
  db: TestDatabase;
  process: AppProcess;
  /** `127.0.0.1:<port>` of its gRPC server. */
  address: string;
  /** A workflow with a fresh code, enabled, from the given fields (as the REST API takes them). */
  newWorkflow(input: Partial<WorkflowInput>): Promise<WorkflowView>;
  /** Merge-patches a workflow. */
  patchWorkflow(id: string, patch: Record<string, unknown>): Promise<WorkflowView>;
  close(): Promise<void>;
}

/** Starts the workflow app on a fresh database (`label` names it). */
export async function startWorkflowFixture(label: string): Promise<WorkflowFixture> {
  const db = await createTestDatabase(label);
  const proc = await startAppProcess('workflow', db.url, { PRODUCT_APPROVAL_APPLIER: 'false' });
  const client = createRpcClient(pb.WorkflowsServiceClient, {
    service: 'workflow',
    address: proc.address,
    deadlineMs: 10_000,
  });
  const viewOf = (m: pb.Workflow | undefined) => workflowFromWire(m as never) as unknown as WorkflowView;
  let n = 0;
  return {
    db,
    process: proc,
    address: proc.address,
    async newWorkflow(input) {
      const i = ++n;
      const wire = workflowToWire({ code: `flow_${i}`, name: `Flow ${i}`, enabled: true, ...input } as never);
      return viewOf((await client.createWorkflow({ input: pb.WorkflowInput.fromPartial(wire as never) })).data);
    },
    async patchWorkflow(id, patch) {
      return viewOf((await client.patchWorkflow({ id, patch })).data);
    },
    async close() {
      client.close();
      await proc.stop();
      await db.drop();
    },
  };
}
