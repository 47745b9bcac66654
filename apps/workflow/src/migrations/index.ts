import { CreateWorkflow1795482512541 } from './1795482512541-create-workflow';
import { CreateUsersGroups1795532488508 } from './1795532488508-create-users-groups';
import { CreateWorkflows1795532501873 } from './1795532501873-create-workflows';
import { CreateWorkflowApprovals1795532561356 } from './1795532561356-create-workflow-approvals';
import { CreateProductApprovals1795552141855 } from './1795552141855-create-product-approvals';
import { UsersGroupsMembersIndex1795627000000 } from './1795627000000-users-groups-members-index';
import { OutboxDeadLetters1795800000000 } from './1795800000000-outbox-dead-letters';
import { IdempotentCalls1795900000000 } from './1795900000000-idempotent-calls';
import { UsersGroupsNamesNfc1796200000000 } from './1796200000000-users-groups-names-nfc';

/** Every migration of the workflow schema, oldest first. */
export const migrations = [
  CreateWorkflow1795482512541,
  CreateUsersGroups1795532488508,
  CreateWorkflows1795532501873,
  CreateWorkflowApprovals1795532561356,
  CreateProductApprovals1795552141855,
  UsersGroupsMembersIndex1795627000000,
  OutboxDeadLetters1795800000000,
  IdempotentCalls1795900000000,
  UsersGroupsNamesNfc1796200000000,
];
