import { PROTO_FILES } from '@pim/contracts';
import { WorkflowApproval } from '@pim/resources';
import { contractProblems } from '@pim/testing';
import { WorkflowApprovalEntity } from '../entities/workflow-approval.entity';

// Declared once (libs/resources); the table and the messages must agree in names, types and optionality.
describe('workflow approvals contract: declaration, entity and proto messages', () => {
  it('WorkflowApproval agrees with WorkflowApprovalEntity and pim.workflow.v1.WorkflowApproval / WorkflowApprovalInput', () => {
    expect(
      contractProblems({
        declaration: WorkflowApproval,
        entity: WorkflowApprovalEntity,
        protoFile: PROTO_FILES.workflow,
        message: 'pim.workflow.v1.WorkflowApproval',
        inputMessage: 'pim.workflow.v1.WorkflowApprovalInput',
      }),
    ).toEqual([]);
  });
});
