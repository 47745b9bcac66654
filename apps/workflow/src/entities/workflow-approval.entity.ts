import { Entity, Index } from 'typeorm';
import { SearchableRecordEntity, declaredEntity } from '@pim/records';
import { WorkflowApproval } from '@pim/resources';

/** A workflow approval: the declared fields (`WorkflowApproval` in @pim/resources) and the common record columns. */
@Entity({ name: 'workflow_approvals' })
@Index('UQ_workflow_approvals_code_live', ['code'], { unique: true, where: 'deleted = false' })
@Index('IDX_workflow_approvals_created_at', ['created_at', '_id'])
// At most one live default: the write that makes one the default clears the previous one first.
@Index('UQ_workflow_approvals_default_live', ['default'], {
  unique: true,
  where: '"default" = true AND deleted = false',
})
export class WorkflowApprovalEntity extends declaredEntity(WorkflowApproval, SearchableRecordEntity) {}
