import type { AppSpec } from '@pim/app';
import { RecordService } from '@pim/records';
import { WORKFLOW_STORE } from './workflow.records';
import { PROTO_FILES } from '@pim/contracts';
import { readConfig, type WorkflowConfig } from './config';
import { dataSourceOptions } from './data-source';
import { productApprovalRecord } from './product-approval/product-approval.resource';
import { productApprovalsGrpc } from './product-approval/product-approval.grpc';
import { ProductApprovalApplier } from './product-approval/product-approval.applier';
import { ProductApprovalDecisions } from './product-approval/product-approval.decisions';
import { catalogLink } from './links/catalog.link';
import { workflowApprovalRecord } from './workflow-approval/workflow-approval.resource';
import { workflowApprovalsGrpc } from './workflow-approval/workflow-approval.grpc';
import { guardedWorkflowRecord } from './workflow/workflow.resource';
import { ordersLink } from './links/orders.link';
import { workflowsGrpc } from './workflow/workflow.grpc';
import { usersGroupRecord } from './users-group/users-group.resource';
import { usersGroupsGrpc } from './users-group/users-group.grpc';

/** The workflow app as the bootstrap runs it: its resources on the record engine. */
export const workflowApp: AppSpec<WorkflowConfig> = {
  name: 'workflow',
  dir: __dirname,
  config: readConfig,
  dataSource: dataSourceOptions,
  grpc: { port: (c) => c.WORKFLOW_GRPC_PORT, protoFiles: [PROTO_FILES.workflow] },
  metricsPort: (c) => c.WORKFLOW_METRICS_PORT,
  wire: ({ ds, logger, config }) => {
    // Products live in the catalog: approvals check them there, and approved changes are applied there.
    const catalog = catalogLink(config.CATALOG_GRPC_URL);
    // Orders follow workflows: a workflow they use is not deleted.
    const orders = ordersLink(config.ORDERS_GRPC_URL);
    const productApprovals = new RecordService(ds, productApprovalRecord(catalog), WORKFLOW_STORE);
    const applier = new ProductApprovalApplier(
      { dataSource: ds, logger, leaseMs: config.PRODUCT_APPROVAL_LEASE_MS },
      productApprovals,
      catalog,
    );
    return {
      services: [
        productApprovalsGrpc(productApprovals, new ProductApprovalDecisions(productApprovals, applier), logger),
        workflowApprovalsGrpc(new RecordService(ds, workflowApprovalRecord(catalog), WORKFLOW_STORE), logger),
        workflowsGrpc(new RecordService(ds, guardedWorkflowRecord(orders), WORKFLOW_STORE), logger),
        usersGroupsGrpc(new RecordService(ds, usersGroupRecord, WORKFLOW_STORE), ds, logger),
      ],
      loops: [config.PRODUCT_APPROVAL_APPLIER ? applier : undefined],
      close: [() => catalog.close(), () => orders.close()],
    };
  },
};
