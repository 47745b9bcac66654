import { workflow as pb } from '@pim/contracts';
import {
  UsersGroup,
  groupUsersToWire,
  type UsersGroupInput,
  type UsersGroupView,
  Workflow,
  type WorkflowInput,
  type WorkflowView,
  WorkflowApproval,
  workflowStepsFromWire,
  workflowStepsToWire,
  type WorkflowApprovalInput,
  type WorkflowApprovalView,
} from '@pim/resources';
import { createRpcClient, recordClient, type RecordClient } from '@pim/rpc';
import { declaredCodec } from '../http/declared.codec';
import { recordRoutes } from '../http/resource.routes';
import type { OwnerRoutes } from './owners';

/** The workflow app's services as the gateway calls them. */
interface WorkflowClients {
  usersGroups: RecordClient<pb.UsersGroup, pb.UsersGroupInput>;
  workflows: RecordClient<pb.Workflow, pb.WorkflowInput>;
  workflowApprovals: RecordClient<pb.WorkflowApproval, pb.WorkflowApprovalInput>;
  // generator:client-types
  close(): void;
}

/** The workflow app's routes: its declared resources through the route factory. */
export const workflowRoutes: OwnerRoutes = {
  app: 'workflow',
  addressEnv: 'WORKFLOW_GRPC_URL',
  defaultAddress: '127.0.0.1:50058',
  clients: (opts): WorkflowClients => {
    const o = { service: 'workflow', ...opts };
    const usersGroups = createRpcClient(pb.UsersGroupsServiceClient, o);
    const workflows = createRpcClient(pb.WorkflowsServiceClient, o);
    const workflowApprovals = createRpcClient(pb.WorkflowApprovalsServiceClient, o);
    // generator:clients
    return {
      usersGroups: recordClient(usersGroups, pb.UsersGroupsServiceService, {
        one: 'UsersGroup',
        many: 'UsersGroups',
        handles: 'names',
      }),
      workflows: recordClient(workflows, pb.WorkflowsServiceService, {
        one: 'Workflow',
        many: 'Workflows',
        handles: 'codes',
      }),
      workflowApprovals: recordClient(workflowApprovals, pb.WorkflowApprovalsServiceService, {
        one: 'WorkflowApproval',
        many: 'WorkflowApprovals',
        handles: 'codes',
      }),
      // generator:client-entries
      close: () => {
        usersGroups.close();
        workflows.close();
        workflowApprovals.close();
        // generator:close
      },
    };
  },
  routes: (api, clients, limits) => {
    const c = clients as () => WorkflowClients;
    recordRoutes(
      api,
      {
        collection: 'users_groups',
        handle: 'name',
        searches: 'name and description',
        schemas: UsersGroup.schemas,
        listDecl: UsersGroup.listDecl,
        client: () => c().usersGroups,
        codec: declaredCodec<UsersGroupView, pb.UsersGroup, pb.UsersGroupInput, UsersGroupInput>(UsersGroup, {
          toInput: { users: groupUsersToWire },
        }),
      },
      limits,
      {},
      {},
    );
    recordRoutes(
      api,
      {
        collection: 'workflows',
        searches: 'code and name',
        schemas: Workflow.schemas,
        listDecl: Workflow.listDecl,
        client: () => c().workflows,
        codec: declaredCodec<WorkflowView, pb.Workflow, pb.WorkflowInput, WorkflowInput>(Workflow, {
          toInput: { steps: workflowStepsToWire },
          fromMessage: { steps: workflowStepsFromWire },
        }),
      },
      limits,
      {},
      {},
    );
    recordRoutes(
      api,
      {
        collection: 'workflow_approvals',
        searches: 'code and name',
        schemas: WorkflowApproval.schemas,
        listDecl: WorkflowApproval.listDecl,
        client: () => c().workflowApprovals,
        codec: declaredCodec<
          WorkflowApprovalView,
          pb.WorkflowApproval,
          pb.WorkflowApprovalInput,
          WorkflowApprovalInput
        >(WorkflowApproval),
      },
      limits,
      {},
      {},
    );
    // generator:routes
  },
};
