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
  ProductApproval,
  decisionBodySchema,
  type ProductApprovalInput,
  type ProductApprovalView,
} from '@pim/resources';
import { requireId } from '@pim/ids';
import { UnavailableError } from '@pim/errors';
import type { Api } from '../http/route';
import { etag, etagHeaders, expectedVersion, ifMatchHeader } from '../http/conditional';
import { createRpcClient, recordClient, type PromiseClient, type RecordClient } from '@pim/rpc';
import { declaredCodec } from '../http/declared.codec';
import { recordRoutes, type RecordCodec } from '../http/resource.routes';
import type { OwnerRoutes } from './owners';
import type { UserAccessLookup } from '../auth/access';

/** The workflow app's services as the gateway calls them. */
interface WorkflowClients {
  usersGroups: RecordClient<pb.UsersGroup, pb.UsersGroupInput>;
  workflows: RecordClient<pb.Workflow, pb.WorkflowInput>;
  workflowApprovals: RecordClient<pb.WorkflowApproval, pb.WorkflowApprovalInput>;
  productApprovals: RecordClient<pb.ProductApproval, pb.ProductApprovalInput>;
  /** The decisions on product approvals, beside their record calls. */
  decisions: Pick<PromiseClient<pb.ProductApprovalsServiceClient>, 'approveProductApproval' | 'rejectProductApproval'>;
  /** A user's live groups and whether one sees every product, read on each request of a key bound to a user. */
  access: Pick<PromiseClient<pb.UsersGroupsServiceClient>, 'getUserAccess'>;
  // generator:client-types
  close(): void;
}

const DECISIONS = {
  approve: {
    summary: 'Approve a product approval at its current step',
    description:
      "Taken by the caller's user (the API key must be bound to a user who is an approver of the current step; 403 otherwise). The approval moves to its next step, or after the last one becomes `approved` and its changes are applied to the catalog at once: the answer shows `application.status` `applied`, or `pending` while the catalog does not answer (it is applied as soon as it does). When the catalog refuses the changes (the product was deleted, a relation rule fails), nothing is applied, the approval records why in `application.error` (the catalog's error object), and the answer is a 409 carrying those reasons. A decided approval is a 409. An approval of a product the caller's users groups do not see is a 404, as for none (docs/decisions/access.md).",
    call: 'approveProductApproval',
  },
  reject: {
    summary: 'Reject a product approval at its current step',
    description:
      "Taken by the caller's user, an approver of the current step (403 otherwise): the approval becomes `rejected` and nothing is applied. A decided approval is a 409. An approval of a product the caller's users groups do not see is a 404, as for none (docs/decisions/access.md).",
    call: 'rejectProductApproval',
  },
} as const;

/** `POST /product-approvals/{id}/approve` and `/reject`: a decision at the current step, with an optional comment. */
function decisionRoutes(
  api: Api,
  client: () => WorkflowClients['decisions'],
  codec: RecordCodec<ProductApprovalView, pb.ProductApproval, pb.ProductApprovalInput, ProductApprovalInput>,
): void {
  for (const [verb, d] of Object.entries(DECISIONS)) {
    api.route({
      method: 'post',
      path: `/product-approvals/:id/${verb}`,
      operationId: `${verb}ProductApproval`,
      scope: 'product_approvals:write',
      summary: d.summary,
      description: d.description,
      tags: ['Product approvals'],
      body: decisionBodySchema,
      requestHeaders: ifMatchHeader,
      errors: [403, 409, 412],
      responses: {
        200: {
          description: 'The product approval after the decision',
          schema: ProductApproval.schemas.view,
          headers: etagHeaders,
        },
      },
      handler: async ({ params, body, headers }) => {
        const id = requireId(params.id, 'product approval');
        const { comment } = body as { comment?: string };
        const reply = await client()[d.call]({
          id,
          comment,
          expected_version: expectedVersion(headers['if-match'] as string | undefined),
        });
        if (!reply.data) throw new Error('the workflow app answered without a product approval');
        const record = codec.fromMessage(reply.data);
        return { status: 200, body: record, headers: { ETag: etag(record.version) } };
      },
    });
  }
}

/** The workflow app's routes: its declared resources through the route factory. */
/** A user's product access as the workflow app answers it now, through the workflow clients. */
export function userAccessFrom(clients: () => unknown): UserAccessLookup {
  return async (user_id) => {
    const c = clients() as WorkflowClients | undefined;
    if (!c)
      throw new UnavailableError("The user's groups cannot be read: this gateway has no workflow app to ask", {
        solution: 'Set WORKFLOW_GRPC_URL to the address of the workflow app and restart the gateway',
      });
    const r = await c.access.getUserAccess({ user_id });
    return { groups: r.group_ids ?? [], all_products: r.full_product_access === true };
  };
}

export const workflowRoutes: OwnerRoutes = {
  app: 'workflow',
  addressEnv: 'WORKFLOW_GRPC_URL',
  defaultAddress: '127.0.0.1:50058',
  clients: (opts): WorkflowClients => {
    const o = { service: 'workflow', ...opts };
    const usersGroups = createRpcClient(pb.UsersGroupsServiceClient, o);
    const workflows = createRpcClient(pb.WorkflowsServiceClient, o);
    const workflowApprovals = createRpcClient(pb.WorkflowApprovalsServiceClient, o);
    const productApprovals = createRpcClient(pb.ProductApprovalsServiceClient, o);
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
      productApprovals: recordClient(productApprovals, pb.ProductApprovalsServiceService, {
        one: 'ProductApproval',
        many: 'ProductApprovals',
        // Product approvals have no handle: BatchGet reads ids only.
        handles: 'handles',
      }),
      decisions: productApprovals,
      access: usersGroups,
      // generator:client-entries
      close: () => {
        usersGroups.close();
        workflows.close();
        workflowApprovals.close();
        productApprovals.close();
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
    const productApprovalCodec = declaredCodec<
      ProductApprovalView,
      pb.ProductApproval,
      pb.ProductApprovalInput,
      ProductApprovalInput
    >(ProductApproval);
    recordRoutes(
      api,
      {
        collection: 'product_approvals',
        handle: '_id',
        schemas: ProductApproval.schemas,
        listDecl: ProductApproval.listDecl,
        client: () => c().productApprovals,
        codec: productApprovalCodec,
      },
      limits,
      {},
      {},
    );
    decisionRoutes(api, () => c().decisions, productApprovalCodec);
    // generator:routes
  },
};
