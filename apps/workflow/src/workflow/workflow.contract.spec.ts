import { PROTO_FILES } from '@pim/contracts';
import { Workflow } from '@pim/resources';
import { contractProblems } from '@pim/testing';
import { WorkflowEntity } from '../entities/workflow.entity';

// Declared once (libs/resources); the table and the messages must agree in names, types and optionality.
describe('workflows contract: declaration, entity and proto messages', () => {
  it('Workflow agrees with WorkflowEntity and pim.workflow.v1.Workflow / WorkflowInput', () => {
    expect(
      contractProblems({
        declaration: Workflow,
        entity: WorkflowEntity,
        protoFile: PROTO_FILES.workflow,
        message: 'pim.workflow.v1.Workflow',
        inputMessage: 'pim.workflow.v1.WorkflowInput',
      }),
    ).toEqual([]);
  });
});
