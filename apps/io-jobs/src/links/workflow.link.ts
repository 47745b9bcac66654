import { workflow as wpb } from '@pim/contracts';
import { createRpcClient } from '@pim/rpc';

/** Which product approvals an export's filter asks for: governed by a workflow approval, in a state. */
export interface ApprovalQuery {
  workflow_approval_id?: string;
  status?: string;
}

/** What the io-jobs app asks the workflow app. A workflow app that does not answer is a 503 (the export's job retries). */
export interface WorkflowLink {
  /** Which of these products (at most 1,000) have a live product approval that fits the query. */
  productsWithApproval(productIds: string[], query: ApprovalQuery): Promise<Set<string>>;
  close(): void;
}

const DEADLINE_MS = 10_000;
const PAGE = 100;

/** The workflow app's product approvals at `address` (`host:port`), connected on first use. */
export function workflowLink(address: string): WorkflowLink {
  let client: ReturnType<typeof createRpcClient<wpb.ProductApprovalsServiceClient>> | undefined;
  const c = () =>
    (client ??= createRpcClient(wpb.ProductApprovalsServiceClient, {
      service: 'workflow',
      address,
      deadlineMs: DEADLINE_MS,
    }));
  return {
    async productsWithApproval(productIds, query) {
      const found = new Set<string>();
      if (productIds.length === 0) return found;
      const filters = [{ field: 'product_id', op: 'in', values: productIds }];
      if (query.workflow_approval_id)
        filters.push({ field: 'workflow_approval_id', op: 'eq', values: [query.workflow_approval_id] });
      if (query.status) filters.push({ field: 'status', op: 'eq', values: [query.status] });
      for (let page = 1; ; page++) {
        const { data } = await c().listProductApprovals({
          query: {
            page,
            limit: PAGE,
            skip: 0,
            sort: [{ field: '_id', direction: 'asc' }],
            filters,
            search: '',
            expand: [],
          },
        });
        for (const approval of data) found.add(approval.product_id);
        if (data.length < PAGE) return found;
      }
    },
    close() {
      client?.close();
    },
  };
}
